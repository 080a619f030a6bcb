import PomodoroRuntime
print("pomodoro: under construction")
