// The one shim over libmosquitto (the reference MQTT client), for a poll(2) loop without the
// library's thread. Compiled with its real body where <mosquitto.h> is installed
// (POMODORO_HAVE_MOSQUITTO), which loads the library on first use, else with a body that says
// it is not installed.
#ifndef POMODORO_MQTT_H
#define POMODORO_MQTT_H

#include <stddef.h>

typedef struct pomo_mqtt pomo_mqtt;

/// 1 when libmosquitto was compiled in.
int pomo_mqtt_available(void);
/// Loads libmosquitto (once; pomo_mqtt_new does it too): NULL when it is loaded, else what went
/// wrong and how to fix it.
const char *pomo_mqtt_load(void);
/// A client with a clean session speaking MQTT 5; NULL when libmosquitto is not compiled in or on
/// failure. `max_packet` (0: none) is the Maximum Packet Size its CONNECT asks the broker to keep
/// to; of a message's payload it keeps at most `keep` bytes (its length is kept whole).
pomo_mqtt *pomo_mqtt_new(const char *client_id, int max_packet, int keep);
void pomo_mqtt_free(pomo_mqtt *m);
/// Before connecting: the last will (an empty payload is one too), credentials (password may be NULL), TLS with a CA file.
int pomo_mqtt_will(pomo_mqtt *m, const char *topic, const char *payload, int retain);
int pomo_mqtt_auth(pomo_mqtt *m, const char *user, const char *password);
int pomo_mqtt_tls(pomo_mqtt *m, const char *cafile);
/// Starts connecting without blocking on the TCP handshake (first time: connect, later: reconnect).
int pomo_mqtt_connect(pomo_mqtt *m, const char *host, int port, int keepalive);
/// The socket to poll, or -1.
int pomo_mqtt_socket(pomo_mqtt *m);
int pomo_mqtt_want_write(pomo_mqtt *m);
int pomo_mqtt_loop_read(pomo_mqtt *m);
int pomo_mqtt_loop_write(pomo_mqtt *m);
int pomo_mqtt_loop_misc(pomo_mqtt *m);
/// Publishes; `expiry` > 0 adds MQTT 5's Message Expiry Interval (seconds): the broker drops the
/// message (a retained one too) when it runs out, and forwards what is left of it.
int pomo_mqtt_publish(pomo_mqtt *m, const char *topic, const void *payload, int length, int qos, int retain,
                      long expiry);
/// QoS 1 messages published and not yet acknowledged by the broker (on_publish counts them down).
int pomo_mqtt_unacked(pomo_mqtt *m);
/// Subscribes with MQTT 5's no-local option: the client's own messages do not come back.
int pomo_mqtt_subscribe(pomo_mqtt *m, const char *topic, int qos);
int pomo_mqtt_disconnect(pomo_mqtt *m);
/// The CONNACK code of a connection made since the last call (0 accepted), or -1 when none.
int pomo_mqtt_take_connack(pomo_mqtt *m);
/// Whether the connection was lost since the last call: 0 no, 1 lost, 2 the broker dropped it
/// because another client connected with the same client id (MQTT 5's "session taken over").
int pomo_mqtt_take_disconnect(pomo_mqtt *m);
/// Pops the oldest received message: copies its topic and payload (NUL-terminated) into the
/// buffers (truncating), sets *length to the payload's full length and *retained to 1 when the
/// broker kept it (a retained message, sent at subscribe), *expiry_left to the Message Expiry
/// Interval it came with (seconds; what the broker left of it) or -1 when it had none; returns 0
/// when none, 1 when one.
int pomo_mqtt_next_message(pomo_mqtt *m, char *topic, size_t topic_size, char *payload, size_t payload_size,
                           int *length, int *retained, long *expiry_left);
/// Words for an error code.
const char *pomo_mqtt_strerror(int rc);

#endif
