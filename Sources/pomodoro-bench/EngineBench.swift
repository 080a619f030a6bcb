func engineBench() {}
