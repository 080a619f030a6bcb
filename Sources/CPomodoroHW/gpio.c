#include "pomodoro_hw.h"
int pomo_gpio_compiled(void) {
#ifdef POMODORO_HAVE_GPIOD
  return 1;
#else
  return 0;
#endif
}
