// pomodoro-bench: prints the project's figures, one a line (name value unit).
// Run with: swift run -c release pomodoro-bench
// Each area adds its figures in a file of its own here.
engineBench()
displayBench()
inputBench()
runtimeBench()
leanBench()
mqttBench()
