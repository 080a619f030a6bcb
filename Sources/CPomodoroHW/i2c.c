// I2C through libi2c: open /dev/i2c-N, select the address, SMBus I2C block writes.
// Without POMODORO_HAVE_I2C every call answers -ENOSYS.
#include "pomodoro_hw.h"

#include <errno.h>

int pomo_i2c_compiled(void) {
#ifdef POMODORO_HAVE_I2C
  return 1;
#else
  return 0;
#endif
}

#ifdef POMODORO_HAVE_I2C

#include <fcntl.h>
#include <i2c/smbus.h>
#include <linux/i2c-dev.h>
#include <sys/ioctl.h>
#include <unistd.h>

int pomo_i2c_open(const char *path) {
  int fd = open(path, O_RDWR | O_CLOEXEC);
  return fd < 0 ? -errno : fd;
}

int pomo_i2c_select(int fd, uint8_t address) {
  // ioctl is variadic, which Swift cannot call: this is why the wrapper exists.
  return ioctl(fd, I2C_SLAVE, (unsigned long)address) < 0 ? -errno : 0;
}

int pomo_i2c_write_block(int fd, uint8_t command, const uint8_t *data, size_t length) {
  if (length > I2C_SMBUS_BLOCK_MAX) return -EINVAL;
  // libi2c 4.x returns minus the errno on failure.
  int r = i2c_smbus_write_i2c_block_data(fd, command, (uint8_t)length, data);
  return r < 0 ? r : 0;
}

void pomo_i2c_close(int fd) {
  if (fd >= 0) close(fd);
}

#else

int pomo_i2c_open(const char *path) {
  (void)path;
  return -ENOSYS;
}

int pomo_i2c_select(int fd, uint8_t address) {
  (void)fd;
  (void)address;
  return -ENOSYS;
}

int pomo_i2c_write_block(int fd, uint8_t command, const uint8_t *data, size_t length) {
  (void)fd;
  (void)command;
  (void)data;
  (void)length;
  return -ENOSYS;
}

void pomo_i2c_close(int fd) { (void)fd; }

#endif
