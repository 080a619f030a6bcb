/// Figures for this area; filled in by its work.
func runtimeBench() {}
