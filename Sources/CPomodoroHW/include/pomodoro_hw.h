// The one C shim between Swift and the hardware libraries: libgpiod (the v1 API of 1.6 or the
// v2 API of 2.x, chosen at compile time from the installed header) and libi2c.
//
// Every function that can fail returns 0 (or a count, or a descriptor) on success and minus
// the errno on failure, so Swift can tell the cases apart: -ENOENT (no such chip or line),
// -EACCES / -EPERM (permission), -EBUSY (line held by another consumer), -ENOSYS (the library
// was not compiled in), -ENXIO / -EREMOTEIO (I2C: no acknowledge).
#ifndef POMODORO_HW_H
#define POMODORO_HW_H

#include <stddef.h>
#include <stdint.h>

/// 1 when libgpiod was found at build time, else 0.
int pomo_gpio_compiled(void);
/// 1 when libi2c was found at build time, else 0.
int pomo_i2c_compiled(void);
/// The libgpiod API compiled in: 1 (libgpiod 1.x), 2 (libgpiod 2.x), or 0 (none).
int pomo_gpio_api(void);

// ---- GPIO -------------------------------------------------------------------------------

/// An open GPIO chip.
typedef struct pomo_chip pomo_chip;
/// Lines requested together (inputs with edge events, or one output).
typedef struct pomo_lines pomo_lines;

/// Opens a chip given as a path ("/dev/gpiochip0"), a name ("gpiochip0"), a label
/// ("pinctrl-rp1") or "auto": the first chip (in /dev/gpiochip* order) with a line named
/// `line_hint`. -ENOENT when none matches, -EACCES when a candidate could not be opened.
int pomo_chip_open(const char *spec, const char *line_hint, pomo_chip **out);
/// Closes the chip. Lines requested from it must be released first.
void pomo_chip_close(pomo_chip *chip);
/// The chip's device path, kernel name and label (owned by the chip).
const char *pomo_chip_path(const pomo_chip *chip);
const char *pomo_chip_name(const pomo_chip *chip);
const char *pomo_chip_label(const pomo_chip *chip);
unsigned int pomo_chip_num_lines(const pomo_chip *chip);

/// The offset of the line named `name_or_offset` ("GPIO17"), or of that decimal offset ("17").
/// -ENOENT when there is no such line.
int pomo_chip_find_line(pomo_chip *chip, const char *name_or_offset);

/// What the kernel says about one line: whether it is in use, its name and its consumer
/// (empty strings when it has none; truncated to the buffers' capacities).
int pomo_chip_line_info(pomo_chip *chip, unsigned int offset, int *used, char *name, size_t name_capacity,
                        char *consumer, size_t consumer_capacity);

/// How one input line is requested.
typedef struct pomo_input_spec {
  unsigned int offset;
  int active_low;
  int pull_up;
  /// Kernel debounce period in microseconds (libgpiod v2 only; ignored by v1).
  unsigned int debounce_us;
} pomo_input_spec;

/// Requests `count` inputs with both-edge events under `consumer`. -EBUSY when one is held.
int pomo_request_inputs(pomo_chip *chip, const char *consumer, const pomo_input_spec *specs, size_t count,
                        pomo_lines **out);
/// Requests one output line, initially inactive.
int pomo_request_output(pomo_chip *chip, const char *consumer, unsigned int offset, int active_low,
                        pomo_lines **out);

/// A descriptor that polls readable while edge events are pending.
int pomo_lines_fd(pomo_lines *lines);

/// One edge event: the line's index in the request, whether the logical level rose
/// (became active), and the kernel's CLOCK_MONOTONIC timestamp.
typedef struct pomo_edge {
  uint32_t index;
  int32_t rising;
  int64_t timestamp_ns;
} pomo_edge;

/// Reads pending edge events into `out` without blocking; returns how many (0 when none).
/// Events of one line come in order; with libgpiod v1 lines are read one after the other.
int pomo_lines_read_edges(pomo_lines *lines, pomo_edge *out, size_t capacity);
/// The logical levels of the requested lines, in request order (1 = active).
int pomo_lines_get_values(pomo_lines *lines, int *values, size_t count);
/// Sets an output line's logical level.
int pomo_lines_set_value(pomo_lines *lines, int active);
/// Releases the lines (and frees `lines`).
void pomo_lines_release(pomo_lines *lines);

// ---- I2C --------------------------------------------------------------------------------

/// Opens an I2C adapter ("/dev/i2c-1"); returns the descriptor or -errno.
int pomo_i2c_open(const char *path);
/// Selects the 7-bit address later transfers go to (ioctl I2C_SLAVE).
int pomo_i2c_select(int fd, uint8_t address);
/// An SMBus I2C block write: `command` then `length` (<= 32) bytes. 0 or -errno.
int pomo_i2c_write_block(int fd, uint8_t command, const uint8_t *data, size_t length);
void pomo_i2c_close(int fd);

#endif
