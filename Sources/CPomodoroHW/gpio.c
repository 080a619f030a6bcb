// GPIO through libgpiod. One API of our own (pomodoro_hw.h), three bodies chosen at compile time:
//  - libgpiod v1 (1.6: Debian 12, Pi OS bookworm): its header defines GPIOD_LINE_BULK_MAX_LINES;
//  - libgpiod v2 (2.x: Debian 13, Pi OS trixie): the same include guard, no such macro;
//  - not installed (POMODORO_HAVE_GPIOD undefined): every call answers -ENOSYS.
#define _GNU_SOURCE
#include "pomodoro_hw.h"

#include <errno.h>

int pomo_gpio_compiled(void) {
#ifdef POMODORO_HAVE_GPIOD
  return 1;
#else
  return 0;
#endif
}

#ifdef POMODORO_HAVE_GPIOD

#include <dirent.h>
#include <gpiod.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#ifdef GPIOD_LINE_BULK_MAX_LINES
#define POMO_GPIOD_V1 1
#else
#define POMO_GPIOD_V2 1
#endif

struct pomo_chip {
  struct gpiod_chip *chip;
  char path[PATH_MAX];
  char name[64];
  char label[64];
  unsigned int num_lines;
};

static void copy_string(char *dst, size_t capacity, const char *src) {
  if (capacity == 0) return;
  snprintf(dst, capacity, "%s", src ? src : "");
}

/// Minus the errno a failed call just left, or `fallback` when it left none (so a failure is
/// never reported as success). Call it right after the failing call, before any clean-up, which
/// may change errno.
static int failure(int fallback) { return errno > 0 ? -errno : fallback; }

/// Parses a whole decimal string as an offset; -1 when it is not one.
static long parse_offset(const char *s) {
  if (!s || !*s) return -1;
  char *end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *end || v < 0) return -1;
  return v;
}

// ---- The version-specific part: open, describe, find, request, read, set, release ----------

#ifdef POMO_GPIOD_V1

int pomo_gpio_api(void) { return 1; }

/// Opens `path` and fills in name, label and line count.
static int chip_open_path(const char *path, pomo_chip **out) {
  errno = 0;
  struct gpiod_chip *c = gpiod_chip_open(path);
  if (!c) return failure(-ENODEV);
  pomo_chip *chip = calloc(1, sizeof *chip);
  if (!chip) {
    gpiod_chip_close(c);
    return -ENOMEM;
  }
  chip->chip = c;
  copy_string(chip->path, sizeof chip->path, path);
  copy_string(chip->name, sizeof chip->name, gpiod_chip_name(c));
  copy_string(chip->label, sizeof chip->label, gpiod_chip_label(c));
  chip->num_lines = gpiod_chip_num_lines(c);
  *out = chip;
  return 0;
}

static void chip_close_handle(pomo_chip *chip) { gpiod_chip_close(chip->chip); }

static int chip_find_name(pomo_chip *chip, const char *name) {
  struct gpiod_line *line = gpiod_chip_find_line(chip->chip, name);
  return line ? (int)gpiod_line_offset(line) : -ENOENT;
}

int pomo_chip_line_info(pomo_chip *chip, unsigned int offset, int *used, char *name, size_t name_capacity,
                        char *consumer, size_t consumer_capacity) {
  errno = 0;
  struct gpiod_line *line = gpiod_chip_get_line(chip->chip, offset);
  if (!line) return failure(-EINVAL);
  if (gpiod_line_update(line) < 0) return failure(-EIO);
  *used = gpiod_line_is_used(line) ? 1 : 0;
  copy_string(name, name_capacity, gpiod_line_name(line));
  copy_string(consumer, consumer_capacity, gpiod_line_consumer(line));
  return 0;
}

/// v1 lines: one kernel request (and event descriptor) per line, gathered under one epoll
/// descriptor so that the caller polls a single fd.
struct pomo_lines {
  struct gpiod_line **lines;
  size_t count;
  int epoll_fd;
};

static void lines_free(pomo_lines *l) {
  if (!l) return;
  for (size_t i = 0; i < l->count; i++)
    if (l->lines[i]) gpiod_line_release(l->lines[i]);
  if (l->epoll_fd >= 0) close(l->epoll_fd);
  free(l->lines);
  free(l);
}

static pomo_lines *lines_alloc(size_t count) {
  pomo_lines *l = calloc(1, sizeof *l);
  if (!l) return NULL;
  l->lines = calloc(count, sizeof *l->lines);
  l->epoll_fd = -1;
  if (!l->lines) {
    free(l);
    return NULL;
  }
  return l;
}

int pomo_request_inputs(pomo_chip *chip, const char *consumer, const pomo_input_spec *specs, size_t count,
                        pomo_lines **out) {
  pomo_lines *l = lines_alloc(count);
  if (!l) return -ENOMEM;
  l->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  if (l->epoll_fd < 0) {
    int e = failure(-EIO);
    lines_free(l);
    return e;
  }
  for (size_t i = 0; i < count; i++) {
    int flags = 0;
    if (specs[i].active_low) flags |= GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW;
    if (specs[i].pull_up) flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP;
    errno = 0;
    struct gpiod_line *line = gpiod_chip_get_line(chip->chip, specs[i].offset);
    if (!line || gpiod_line_request_both_edges_events_flags(line, consumer, flags) < 0) {
      int e = failure(line ? -EIO : -EINVAL);
      lines_free(l);
      return e;
    }
    l->lines[i] = line;
    l->count = i + 1;
    struct epoll_event ev = {.events = EPOLLIN | EPOLLPRI, .data.u64 = i};
    if (epoll_ctl(l->epoll_fd, EPOLL_CTL_ADD, gpiod_line_event_get_fd(line), &ev) < 0) {
      int e = failure(-EIO);
      lines_free(l);
      return e;
    }
  }
  *out = l;
  return 0;
}

int pomo_request_output(pomo_chip *chip, const char *consumer, unsigned int offset, int active_low,
                        pomo_lines **out) {
  pomo_lines *l = lines_alloc(1);
  if (!l) return -ENOMEM;
  int flags = active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0;
  errno = 0;
  struct gpiod_line *line = gpiod_chip_get_line(chip->chip, offset);
  if (!line || gpiod_line_request_output_flags(line, consumer, flags, 0) < 0) {
    int e = failure(line ? -EIO : -EINVAL);
    lines_free(l);
    return e;
  }
  l->lines[0] = line;
  l->count = 1;
  *out = l;
  return 0;
}

int pomo_lines_fd(pomo_lines *l) {
  if (l->epoll_fd >= 0) return l->epoll_fd;
  return -EINVAL;
}

int pomo_lines_read_edges(pomo_lines *l, pomo_edge *out, size_t capacity) {
  size_t n = 0;
  const struct timespec zero = {0, 0};
  for (size_t i = 0; i < l->count && n < capacity; i++) {
    while (n < capacity) {
      errno = 0;
      int r = gpiod_line_event_wait(l->lines[i], &zero);
      if (r < 0) return failure(-EIO);
      if (r == 0) break;
      struct gpiod_line_event ev;
      if (gpiod_line_event_read(l->lines[i], &ev) < 0) return failure(-EIO);
      out[n].index = (uint32_t)i;
      out[n].rising = ev.event_type == GPIOD_LINE_EVENT_RISING_EDGE;
      out[n].timestamp_ns = (int64_t)ev.ts.tv_sec * 1000000000LL + ev.ts.tv_nsec;
      n++;
    }
  }
  return (int)n;
}

int pomo_lines_get_values(pomo_lines *l, int *values, size_t count) {
  for (size_t i = 0; i < count && i < l->count; i++) {
    errno = 0;
    int v = gpiod_line_get_value(l->lines[i]);
    if (v < 0) return failure(-EIO);
    values[i] = v;
  }
  return 0;
}

int pomo_lines_set_value(pomo_lines *l, int active) {
  if (l->count != 1) return -EINVAL;
  errno = 0;
  return gpiod_line_set_value(l->lines[0], active ? 1 : 0) < 0 ? failure(-EIO) : 0;
}

void pomo_lines_release(pomo_lines *l) { lines_free(l); }

#else  // POMO_GPIOD_V2

int pomo_gpio_api(void) { return 2; }

static int chip_open_path(const char *path, pomo_chip **out) {
  errno = 0;
  struct gpiod_chip *c = gpiod_chip_open(path);
  if (!c) return failure(-ENODEV);
  struct gpiod_chip_info *info = gpiod_chip_get_info(c);
  if (!info) {
    int e = failure(-EIO);
    gpiod_chip_close(c);
    return e;
  }
  pomo_chip *chip = calloc(1, sizeof *chip);
  if (!chip) {
    gpiod_chip_info_free(info);
    gpiod_chip_close(c);
    return -ENOMEM;
  }
  chip->chip = c;
  copy_string(chip->path, sizeof chip->path, path);
  copy_string(chip->name, sizeof chip->name, gpiod_chip_info_get_name(info));
  copy_string(chip->label, sizeof chip->label, gpiod_chip_info_get_label(info));
  chip->num_lines = (unsigned int)gpiod_chip_info_get_num_lines(info);
  gpiod_chip_info_free(info);
  *out = chip;
  return 0;
}

static void chip_close_handle(pomo_chip *chip) { gpiod_chip_close(chip->chip); }

static int chip_find_name(pomo_chip *chip, const char *name) {
  int offset = gpiod_chip_get_line_offset_from_name(chip->chip, name);
  return offset >= 0 ? offset : -ENOENT;
}

int pomo_chip_line_info(pomo_chip *chip, unsigned int offset, int *used, char *name, size_t name_capacity,
                        char *consumer, size_t consumer_capacity) {
  errno = 0;
  struct gpiod_line_info *info = gpiod_chip_get_line_info(chip->chip, offset);
  if (!info) return failure(-EINVAL);
  *used = gpiod_line_info_is_used(info) ? 1 : 0;
  copy_string(name, name_capacity, gpiod_line_info_get_name(info));
  copy_string(consumer, consumer_capacity, gpiod_line_info_get_consumer(info));
  gpiod_line_info_free(info);
  return 0;
}

/// v2 lines: one kernel request for all of them, with one descriptor.
struct pomo_lines {
  struct gpiod_line_request *request;
  struct gpiod_edge_event_buffer *buffer;
  unsigned int *offsets;
  size_t count;
};

static void lines_free(pomo_lines *l) {
  if (!l) return;
  if (l->request) gpiod_line_request_release(l->request);
  if (l->buffer) gpiod_edge_event_buffer_free(l->buffer);
  free(l->offsets);
  free(l);
}

/// Requests `count` lines, each with its own settings, under `consumer`.
static int request(pomo_chip *chip, const char *consumer, const unsigned int *offsets,
                   struct gpiod_line_settings **settings, size_t count, struct gpiod_line_request **out) {
  struct gpiod_line_config *line_cfg = gpiod_line_config_new();
  struct gpiod_request_config *req_cfg = gpiod_request_config_new();
  int e = 0;
  if (!line_cfg || !req_cfg) {
    e = -ENOMEM;
    goto done;
  }
  for (size_t i = 0; i < count; i++) {
    errno = 0;
    if (gpiod_line_config_add_line_settings(line_cfg, &offsets[i], 1, settings[i]) < 0) {
      e = failure(-EINVAL);
      goto done;
    }
  }
  gpiod_request_config_set_consumer(req_cfg, consumer);
  errno = 0;
  *out = gpiod_chip_request_lines(chip->chip, req_cfg, line_cfg);
  if (!*out) e = failure(-EIO);
done:
  if (line_cfg) gpiod_line_config_free(line_cfg);
  if (req_cfg) gpiod_request_config_free(req_cfg);
  return e;
}

int pomo_request_inputs(pomo_chip *chip, const char *consumer, const pomo_input_spec *specs, size_t count,
                        pomo_lines **out) {
  pomo_lines *l = calloc(1, sizeof *l);
  struct gpiod_line_settings **settings = calloc(count, sizeof *settings);
  int e = 0;
  if (!l || !settings || !(l->offsets = calloc(count, sizeof *l->offsets))) {
    e = -ENOMEM;
    goto done;
  }
  l->count = count;
  for (size_t i = 0; i < count; i++) {
    l->offsets[i] = specs[i].offset;
    struct gpiod_line_settings *s = settings[i] = gpiod_line_settings_new();
    if (!s) {
      e = -ENOMEM;
      goto done;
    }
    errno = 0;
    if (gpiod_line_settings_set_direction(s, GPIOD_LINE_DIRECTION_INPUT) < 0 ||
        gpiod_line_settings_set_edge_detection(s, GPIOD_LINE_EDGE_BOTH) < 0 ||
        gpiod_line_settings_set_bias(s, specs[i].pull_up ? GPIOD_LINE_BIAS_PULL_UP : GPIOD_LINE_BIAS_AS_IS) < 0) {
      e = failure(-EINVAL);
      goto done;
    }
    gpiod_line_settings_set_active_low(s, specs[i].active_low != 0);
    // The kernel holds each edge until the line has been stable this long (adds that latency).
    gpiod_line_settings_set_debounce_period_us(s, specs[i].debounce_us);
  }
  e = request(chip, consumer, l->offsets, settings, count, &l->request);
  if (e) goto done;
  l->buffer = gpiod_edge_event_buffer_new(64);
  if (!l->buffer) e = -ENOMEM;
done:
  if (settings)
    for (size_t i = 0; i < count; i++)
      if (settings[i]) gpiod_line_settings_free(settings[i]);
  free(settings);
  if (e) {
    lines_free(l);
    return e;
  }
  *out = l;
  return 0;
}

int pomo_request_output(pomo_chip *chip, const char *consumer, unsigned int offset, int active_low,
                        pomo_lines **out) {
  pomo_lines *l = calloc(1, sizeof *l);
  struct gpiod_line_settings *s = gpiod_line_settings_new();
  int e = 0;
  if (!l || !s || !(l->offsets = calloc(1, sizeof *l->offsets))) {
    e = -ENOMEM;
    goto done;
  }
  l->count = 1;
  l->offsets[0] = offset;
  errno = 0;
  if (gpiod_line_settings_set_direction(s, GPIOD_LINE_DIRECTION_OUTPUT) < 0 ||
      gpiod_line_settings_set_output_value(s, GPIOD_LINE_VALUE_INACTIVE) < 0) {
    e = failure(-EINVAL);
    goto done;
  }
  gpiod_line_settings_set_active_low(s, active_low != 0);
  e = request(chip, consumer, l->offsets, &s, 1, &l->request);
done:
  if (s) gpiod_line_settings_free(s);
  if (e) {
    lines_free(l);
    return e;
  }
  *out = l;
  return 0;
}

int pomo_lines_fd(pomo_lines *l) { return gpiod_line_request_get_fd(l->request); }

int pomo_lines_read_edges(pomo_lines *l, pomo_edge *out, size_t capacity) {
  size_t n = 0;
  while (n < capacity) {
    errno = 0;
    int ready = gpiod_line_request_wait_edge_events(l->request, 0);
    if (ready < 0) return failure(-EIO);
    if (ready == 0) break;
    size_t want = capacity - n < 64 ? capacity - n : 64;
    errno = 0;
    int got = gpiod_line_request_read_edge_events(l->request, l->buffer, want);
    if (got < 0) return failure(-EIO);
    for (int k = 0; k < got; k++) {
      struct gpiod_edge_event *ev = gpiod_edge_event_buffer_get_event(l->buffer, (unsigned long)k);
      unsigned int offset = gpiod_edge_event_get_line_offset(ev);
      uint32_t index = 0;
      while (index < l->count && l->offsets[index] != offset) index++;
      if (index == l->count) continue;  // not a line of this request (cannot happen): dropped
      out[n].index = index;
      out[n].rising = gpiod_edge_event_get_event_type(ev) == GPIOD_EDGE_EVENT_RISING_EDGE;
      out[n].timestamp_ns = (int64_t)gpiod_edge_event_get_timestamp_ns(ev);
      n++;
    }
  }
  return (int)n;
}

int pomo_lines_get_values(pomo_lines *l, int *values, size_t count) {
  if (count > l->count) count = l->count;
  enum gpiod_line_value v[64];
  if (count > 64) return -EINVAL;
  errno = 0;
  if (gpiod_line_request_get_values_subset(l->request, count, l->offsets, v) < 0) return failure(-EIO);
  for (size_t i = 0; i < count; i++) values[i] = v[i] == GPIOD_LINE_VALUE_ACTIVE;
  return 0;
}

int pomo_lines_set_value(pomo_lines *l, int active) {
  if (l->count != 1) return -EINVAL;
  enum gpiod_line_value v = active ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE;
  errno = 0;
  return gpiod_line_request_set_value(l->request, l->offsets[0], v) < 0 ? failure(-EIO) : 0;
}

void pomo_lines_release(pomo_lines *l) { lines_free(l); }

#endif  // POMO_GPIOD_V1 / V2

// ---- The common part: finding a chip by path, name, label or line -------------------------

static int compare_chip_names(const void *a, const void *b) {
  const char *x = *(const char *const *)a, *y = *(const char *const *)b;
  long nx = parse_offset(x + 8), ny = parse_offset(y + 8);  // after "gpiochip"
  return nx < ny ? -1 : nx > ny ? 1 : strcmp(x, y);
}

/// Scans /dev/gpiochip* in number order for the first chip whose label is `label` (when
/// non-NULL) or that has a line named `line` (when non-NULL).
static int chip_scan(const char *label, const char *line, pomo_chip **out) {
  errno = 0;
  DIR *dir = opendir("/dev");
  if (!dir) return failure(-ENOENT);
  char **names = NULL;
  size_t count = 0, capacity = 0;
  int result = 0;
  for (;;) {
    errno = 0;
    struct dirent *entry = readdir(dir);
    if (!entry) {
      if (errno) result = failure(-EIO);
      break;
    }
    if (strncmp(entry->d_name, "gpiochip", 8) != 0 || parse_offset(entry->d_name + 8) < 0) continue;
    if (count == capacity) {
      size_t grown = capacity ? 2 * capacity : 16;
      char **bigger = realloc(names, grown * sizeof *names);
      if (!bigger) {
        result = -ENOMEM;
        break;
      }
      names = bigger;
      capacity = grown;
    }
    if (!(names[count] = strdup(entry->d_name))) {
      result = -ENOMEM;
      break;
    }
    count++;
  }
  closedir(dir);
  if (result) {
    for (size_t i = 0; i < count; i++) free(names[i]);
    free(names);
    return result;
  }
  if (count) qsort(names, count, sizeof *names, compare_chip_names);
  result = -ENOENT;
  bool denied = false;
  for (size_t i = 0; i < count && result == -ENOENT; i++) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "/dev/%s", names[i]);
    pomo_chip *chip = NULL;
    int e = chip_open_path(path, &chip);
    if (e == -EACCES || e == -EPERM) denied = true;
    if (e) continue;
    bool match = label ? strcmp(chip->label, label) == 0 : chip_find_name(chip, line) >= 0;
    if (match) {
      *out = chip;
      result = 0;
    } else {
      pomo_chip_close(chip);
    }
  }
  for (size_t i = 0; i < count; i++) free(names[i]);
  free(names);
  // Nothing matched, but some chip could not be opened: permission is the likelier cause.
  if (result == -ENOENT && denied) return -EACCES;
  return result;
}

int pomo_chip_open(const char *spec, const char *line_hint, pomo_chip **out) {
  if (!spec || !*spec) return -EINVAL;
  if (strcmp(spec, "auto") == 0) {
    if (!line_hint || !*line_hint) return -EINVAL;
    return chip_scan(NULL, line_hint, out);
  }
  if (spec[0] == '/') return chip_open_path(spec, out);
  if (strncmp(spec, "gpiochip", 8) == 0 && parse_offset(spec + 8) >= 0) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "/dev/%s", spec);
    return chip_open_path(path, out);
  }
  return chip_scan(spec, NULL, out);
}

void pomo_chip_close(pomo_chip *chip) {
  if (!chip) return;
  chip_close_handle(chip);
  free(chip);
}

const char *pomo_chip_path(const pomo_chip *chip) { return chip->path; }
const char *pomo_chip_name(const pomo_chip *chip) { return chip->name; }
const char *pomo_chip_label(const pomo_chip *chip) { return chip->label; }
unsigned int pomo_chip_num_lines(const pomo_chip *chip) { return chip->num_lines; }

int pomo_chip_find_line(pomo_chip *chip, const char *name_or_offset) {
  int offset = chip_find_name(chip, name_or_offset);
  if (offset >= 0) return offset;
  long number = parse_offset(name_or_offset);
  if (number >= 0 && number < (long)chip->num_lines) return (int)number;
  return -ENOENT;
}

#else  // not installed

int pomo_gpio_api(void) { return 0; }
int pomo_chip_open(const char *spec, const char *line_hint, pomo_chip **out) {
  (void)spec;
  (void)line_hint;
  *out = NULL;
  return -ENOSYS;
}
void pomo_chip_close(pomo_chip *chip) { (void)chip; }
const char *pomo_chip_path(const pomo_chip *chip) {
  (void)chip;
  return "";
}
const char *pomo_chip_name(const pomo_chip *chip) {
  (void)chip;
  return "";
}
const char *pomo_chip_label(const pomo_chip *chip) {
  (void)chip;
  return "";
}
unsigned int pomo_chip_num_lines(const pomo_chip *chip) {
  (void)chip;
  return 0;
}
int pomo_chip_find_line(pomo_chip *chip, const char *name_or_offset) {
  (void)chip;
  (void)name_or_offset;
  return -ENOSYS;
}
int pomo_chip_line_info(pomo_chip *chip, unsigned int offset, int *used, char *name, size_t name_capacity,
                        char *consumer, size_t consumer_capacity) {
  (void)chip;
  (void)offset;
  (void)used;
  (void)name;
  (void)name_capacity;
  (void)consumer;
  (void)consumer_capacity;
  return -ENOSYS;
}
int pomo_request_inputs(pomo_chip *chip, const char *consumer, const pomo_input_spec *specs, size_t count,
                        pomo_lines **out) {
  (void)chip;
  (void)consumer;
  (void)specs;
  (void)count;
  *out = NULL;
  return -ENOSYS;
}
int pomo_request_output(pomo_chip *chip, const char *consumer, unsigned int offset, int active_low,
                        pomo_lines **out) {
  (void)chip;
  (void)consumer;
  (void)offset;
  (void)active_low;
  *out = NULL;
  return -ENOSYS;
}
int pomo_lines_fd(pomo_lines *lines) {
  (void)lines;
  return -ENOSYS;
}
int pomo_lines_read_edges(pomo_lines *lines, pomo_edge *out, size_t capacity) {
  (void)lines;
  (void)out;
  (void)capacity;
  return -ENOSYS;
}
int pomo_lines_get_values(pomo_lines *lines, int *values, size_t count) {
  (void)lines;
  (void)values;
  (void)count;
  return -ENOSYS;
}
int pomo_lines_set_value(pomo_lines *lines, int active) {
  (void)lines;
  (void)active;
  return -ENOSYS;
}
void pomo_lines_release(pomo_lines *lines) { (void)lines; }

#endif
