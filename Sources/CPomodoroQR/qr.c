#include "pomodoro_qr.h"

#include <stdio.h>
#include <string.h>

#ifdef POMODORO_HAVE_QRENCODE
#include <dlfcn.h>
#include <errno.h>
#include <qrencode.h>

// libqrencode is loaded the first time a pairing code is drawn, not linked: a desk never paired
// never maps it. Debian's libqrencode4 installs it under this name.
#define POMO_QR_SONAME "libqrencode.so.4"

static __typeof__(&QRcode_encodeString) encode_string;
static __typeof__(&QRcode_free) qr_free;
static int loaded;
static char load_error[256];

static const char *load(void) {
  if (loaded) return NULL;
  if (load_error[0]) return load_error;
  void *handle = dlopen(POMO_QR_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (handle) {
    encode_string = (__typeof__(encode_string))dlsym(handle, "QRcode_encodeString");
    qr_free = (__typeof__(qr_free))dlsym(handle, "QRcode_free");
  }
  if (!handle || !encode_string || !qr_free) {
    const char *why = handle ? "a symbol is missing" : dlerror();
    snprintf(load_error, sizeof load_error, "%s cannot be loaded (%s): install it with sudo apt install libqrencode4",
             POMO_QR_SONAME, why ? why : "unknown error");
    if (handle) dlclose(handle);
    return load_error;
  }
  loaded = 1;
  return NULL;
}

int pomo_qr_available(void) { return 1; }

int pomo_qr_encode(const char *text, int level, unsigned char *out, size_t capacity, char *error, size_t error_size) {
  const char *why = load();
  if (why) {
    snprintf(error, error_size, "%s", why);
    return -1;
  }
  QRecLevel levels[] = {QR_ECLEVEL_L, QR_ECLEVEL_M, QR_ECLEVEL_Q, QR_ECLEVEL_H};
  if (level < 0 || level > 3) level = 0;
  errno = 0;
  QRcode *code = encode_string(text, 0, levels[level], QR_MODE_8, 1);
  if (!code) {
    snprintf(error, error_size, "libqrencode cannot encode %zu bytes (%s)", strlen(text),
             errno == ERANGE ? "too long for any QR code" : strerror(errno));
    return -1;
  }
  int width = code->width;
  size_t n = (size_t)width * (size_t)width;
  if (n > capacity) {
    qr_free(code);
    return 0;
  }
  for (size_t i = 0; i < n; i++) out[i] = code->data[i] & 1;
  qr_free(code);
  return width;
}

#else

int pomo_qr_available(void) { return 0; }

int pomo_qr_encode(const char *text, int level, unsigned char *out, size_t capacity, char *error, size_t error_size) {
  (void)text;
  (void)level;
  (void)out;
  (void)capacity;
  snprintf(error, error_size, "libqrencode was not compiled in (sudo apt install libqrencode-dev, then rebuild)");
  return -1;
}

#endif
