// The one C shim between Swift and the hardware libraries (libgpiod v1 or v2, libi2c).
// Filled in by the GPIO/I2C work; see gpio.c and i2c.c.
#ifndef POMODORO_HW_H
#define POMODORO_HW_H

/// 1 when libgpiod was found at build time, else 0.
int pomo_gpio_compiled(void);
/// 1 when libi2c was found at build time, else 0.
int pomo_i2c_compiled(void);

#endif
