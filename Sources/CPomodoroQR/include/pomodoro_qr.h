// The one shim over libqrencode, for the pairing screen's QR code. Compiled with its real body
// where <qrencode.h> is installed (POMODORO_HAVE_QRENCODE), which loads the library (dlopen) the
// first time a code is encoded, else with a body that says it is not installed.
#ifndef POMODORO_QR_H
#define POMODORO_QR_H

#include <stddef.h>

/// 1 when libqrencode was compiled in.
int pomo_qr_available(void);

/// Encodes `text` (8-bit, case kept) at error correction level `level` (0 L, 1 M, 2 Q, 3 H) in
/// the smallest version that holds it. Writes its modules row by row into `out` (1 dark, 0
/// light) when they fit in `capacity`, and returns its width in modules; 0 when it does not fit
/// `capacity`; -1 with the reason in `error` when it cannot be encoded (the library absent, the
/// text too long for any version).
int pomo_qr_encode(const char *text, int level, unsigned char *out, size_t capacity, char *error, size_t error_size);

#endif
