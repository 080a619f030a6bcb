#include "pomodoro_hw.h"
int pomo_i2c_compiled(void) {
#ifdef POMODORO_HAVE_I2C
  return 1;
#else
  return 0;
#endif
}
