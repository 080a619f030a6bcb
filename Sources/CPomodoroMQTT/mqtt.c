#include "pomodoro_mqtt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef POMODORO_HAVE_MOSQUITTO
#include <dlfcn.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>

// libmosquitto is loaded when the bridge makes its first client, not linked: only `pomodoro mqtt`
// maps it (and the TLS libraries it brings, about 1.8 MiB resident), never the device's own
// `pomodoro run` or the simulator. The header still types every entry point at compile time.
// Debian's libmosquitto1 (1.x and 2.x alike) installs it under this name.
#define POMO_MOSQUITTO_SONAME "libmosquitto.so.1"
#define POMO_MOSQUITTO_FUNCTIONS(X)                                                               \
  X(lib_init) X(new) X(int_option) X(connect_callback_set) X(disconnect_v5_callback_set)          \
  X(message_v5_callback_set) X(publish_callback_set) X(destroy) X(will_set) X(username_pw_set)    \
  X(tls_set) X(connect_async) X(reconnect_async) X(socket) X(want_write) X(loop_read)             \
  X(loop_write) X(loop_misc) X(publish_v5) X(subscribe_v5) X(disconnect) X(strerror)             \
  X(connect_bind_v5) X(property_add_int32) X(property_read_int32) X(property_free_all)

static struct {
#define POMO_FIELD(name) __typeof__(&mosquitto_##name) name;
  POMO_MOSQUITTO_FUNCTIONS(POMO_FIELD)
#undef POMO_FIELD
} lib;

static int loaded = 0;
static char load_error[512];

const char *pomo_mqtt_load(void) {
  if (loaded) return NULL;
  if (load_error[0]) return load_error;
  void *handle = dlopen(POMO_MOSQUITTO_SONAME, RTLD_NOW | RTLD_LOCAL);
  const char *missing = NULL;
  if (handle) {
#define POMO_LOAD(name)                                                 \
  if (!missing && !(lib.name = (__typeof__(lib.name))dlsym(handle, "mosquitto_" #name))) \
    missing = "mosquitto_" #name;
    POMO_MOSQUITTO_FUNCTIONS(POMO_LOAD)
#undef POMO_LOAD
  }
  if (!handle || missing) {
    const char *why = handle ? missing : dlerror();
    snprintf(load_error, sizeof load_error,
             "%s cannot be loaded (%s%s): install it with sudo apt install libmosquitto1",
             POMO_MOSQUITTO_SONAME, handle ? "no symbol " : "", why ? why : "unknown error");
    if (handle) dlclose(handle);
    return load_error;
  }
  lib.lib_init();
  loaded = 1;
  return NULL;
}

struct message {
  char *topic;
  char *payload;
  int length;
  int retain;
  long expiry_left;
  struct message *next;
};

struct pomo_mqtt {
  struct mosquitto *mosq;
  int connack;
  int disconnected;
  int taken_over;
  int connected_once;
  struct message *head, *tail;
  int queued;
  int unacked;
  int max_packet;
  int keep;
};

static void on_connect(struct mosquitto *mosq, void *obj, int rc) {
  (void)mosq;
  ((pomo_mqtt *)obj)->connack = rc;
}

// MQTT 5 (the client is made for it): the broker says why it ends a connection, and one reason
// matters here: another client connected with this client id (a second bridge for the desk).
static void on_disconnect(struct mosquitto *mosq, void *obj, int rc, const mosquitto_property *props) {
  (void)mosq;
  (void)props;
  pomo_mqtt *m = obj;
  m->disconnected = 1;
  m->taken_over = rc == MQTT_RC_SESSION_TAKEN_OVER;
}

// A QoS 1 message the broker acknowledged (PUBACK).
static void on_publish(struct mosquitto *mosq, void *obj, int mid) {
  (void)mosq;
  (void)mid;
  pomo_mqtt *m = obj;
  if (m->unacked > 0) m->unacked--;
}

// MQTT 5: the message's properties come with it; of them the bridge reads the Message Expiry
// Interval, which the broker forwards less the time the message waited in it (a room's session
// tells its age by it).
static void on_message(struct mosquitto *mosq, void *obj, const struct mosquitto_message *msg,
                       const mosquitto_property *props) {
  (void)mosq;
  pomo_mqtt *m = obj;
  if (m->queued >= 1024) return;  // A flood is dropped, not buffered without end.
  struct message *e = calloc(1, sizeof *e);
  if (!e) return;
  e->topic = strdup(msg->topic);
  e->payload = malloc((size_t)(msg->payloadlen < m->keep ? msg->payloadlen : m->keep) + 1);
  if (!e->topic || !e->payload) {
    free(e->topic);
    free(e->payload);
    free(e);
    return;
  }
  // At most `keep` bytes of it: past that the bridge takes nothing of a payload but its length.
  size_t n = msg->payloadlen < m->keep ? (size_t)msg->payloadlen : (size_t)m->keep;
  memcpy(e->payload, msg->payload, n);
  e->payload[n] = 0;
  e->length = msg->payloadlen;
  e->retain = msg->retain;
  uint32_t left = 0;
  e->expiry_left = lib.property_read_int32(props, MQTT_PROP_MESSAGE_EXPIRY_INTERVAL, &left, false) ? (long)left : -1;
  if (m->tail) m->tail->next = e; else m->head = e;
  m->tail = e;
  m->queued++;
}

int pomo_mqtt_available(void) { return 1; }

pomo_mqtt *pomo_mqtt_new(const char *client_id, int max_packet, int keep) {
  if (pomo_mqtt_load()) return NULL;
  pomo_mqtt *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->connack = -1;
  m->max_packet = max_packet;
  m->keep = keep;
  m->mosq = lib.new(client_id, 1, m);
  if (!m->mosq) {
    free(m);
    return NULL;
  }
  // Small messages, sent at once: without this, Nagle's algorithm and the broker's delayed ACK
  // hold a state or a command back about 40 ms (measured by pomodoro-bench's mqtt figures).
  lib.int_option(m->mosq, MOSQ_OPT_TCP_NODELAY, 1);
  lib.int_option(m->mosq, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
  lib.connect_callback_set(m->mosq, on_connect);
  lib.disconnect_v5_callback_set(m->mosq, on_disconnect);
  lib.message_v5_callback_set(m->mosq, on_message);
  lib.publish_callback_set(m->mosq, on_publish);
  return m;
}

void pomo_mqtt_free(pomo_mqtt *m) {
  if (!m) return;
  while (m->head) {
    struct message *e = m->head;
    m->head = e->next;
    free(e->topic);
    free(e->payload);
    free(e);
  }
  lib.destroy(m->mosq);
  free(m);
}

// An empty payload is a will too: retained, it deletes what the topic holds (a room's member).
int pomo_mqtt_will(pomo_mqtt *m, const char *topic, const char *payload, int retain) {
  int length = (int)strlen(payload);
  return lib.will_set(m->mosq, topic, length, length > 0 ? payload : NULL, 1, retain != 0);
}

int pomo_mqtt_auth(pomo_mqtt *m, const char *user, const char *password) {
  return lib.username_pw_set(m->mosq, user, password);
}

int pomo_mqtt_tls(pomo_mqtt *m, const char *cafile) {
  return lib.tls_set(m->mosq, cafile, NULL, NULL, NULL, NULL);
}

int pomo_mqtt_connect(pomo_mqtt *m, const char *host, int port, int keepalive) {
  if (!m->connected_once) {
    m->connected_once = 1;
    if (m->max_packet > 0) {
      // MQTT 5's Maximum Packet Size in CONNECT: the broker drops larger messages for this client
      // rather than sending them (libmosquitto itself reads any size whole). libmosquitto takes
      // CONNECT properties only through the blocking mosquitto_connect_bind_v5, which keeps them
      // for every later connect before it checks its arguments: called with port -1 it keeps
      // them and returns MOSQ_ERR_INVAL without touching the network, and the non-blocking
      // connect below and every reconnect send them (libmosquitto 2.0.11 to 2.0.21).
      mosquitto_property *props = NULL;
      int rc = lib.property_add_int32(&props, MQTT_PROP_MAXIMUM_PACKET_SIZE, (uint32_t)m->max_packet);
      if (rc == MOSQ_ERR_SUCCESS) rc = lib.connect_bind_v5(m->mosq, host, -1, keepalive, NULL, props);
      lib.property_free_all(&props);
      if (rc != MOSQ_ERR_INVAL) return rc == MOSQ_ERR_SUCCESS ? MOSQ_ERR_UNKNOWN : rc;
    }
    return lib.connect_async(m->mosq, host, port, keepalive);
  }
  return lib.reconnect_async(m->mosq);
}

int pomo_mqtt_socket(pomo_mqtt *m) { return lib.socket(m->mosq); }
int pomo_mqtt_want_write(pomo_mqtt *m) { return lib.want_write(m->mosq) ? 1 : 0; }
int pomo_mqtt_loop_read(pomo_mqtt *m) { return lib.loop_read(m->mosq, 1); }
int pomo_mqtt_loop_write(pomo_mqtt *m) { return lib.loop_write(m->mosq, 1); }
int pomo_mqtt_loop_misc(pomo_mqtt *m) { return lib.loop_misc(m->mosq); }

int pomo_mqtt_publish(pomo_mqtt *m, const char *topic, const void *payload, int length, int qos, int retain,
                      long expiry) {
  mosquitto_property *props = NULL;
  int rc = MOSQ_ERR_SUCCESS;
  if (expiry > 0) rc = lib.property_add_int32(&props, MQTT_PROP_MESSAGE_EXPIRY_INTERVAL, (uint32_t)expiry);
  if (rc == MOSQ_ERR_SUCCESS) rc = lib.publish_v5(m->mosq, NULL, topic, length, payload, qos, retain != 0, props);
  lib.property_free_all(&props);
  if (rc == 0 && qos > 0) m->unacked++;
  return rc;
}

int pomo_mqtt_unacked(pomo_mqtt *m) { return m->unacked; }

// No local: the client's own publishes on a topic it subscribes to (its availability) do not
// come back to it, so only other clients' messages arrive there.
int pomo_mqtt_subscribe(pomo_mqtt *m, const char *topic, int qos) {
  return lib.subscribe_v5(m->mosq, NULL, topic, qos, MQTT_SUB_OPT_NO_LOCAL, NULL);
}

int pomo_mqtt_disconnect(pomo_mqtt *m) { return lib.disconnect(m->mosq); }

int pomo_mqtt_take_connack(pomo_mqtt *m) {
  int rc = m->connack;
  m->connack = -1;
  return rc;
}

int pomo_mqtt_take_disconnect(pomo_mqtt *m) {
  int d = m->disconnected ? (m->taken_over ? 2 : 1) : 0;
  m->disconnected = 0;
  m->taken_over = 0;
  return d;
}

int pomo_mqtt_next_message(pomo_mqtt *m, char *topic, size_t topic_size, char *payload, size_t payload_size,
                           int *length, int *retained, long *expiry_left) {
  struct message *e = m->head;
  if (!e) return 0;
  m->head = e->next;
  if (!m->head) m->tail = NULL;
  m->queued--;
  strncpy(topic, e->topic, topic_size - 1);
  topic[topic_size - 1] = 0;
  size_t n = (size_t)e->length < payload_size - 1 ? (size_t)e->length : payload_size - 1;
  memcpy(payload, e->payload, n);
  payload[n] = 0;
  *length = e->length;
  *retained = e->retain;
  *expiry_left = e->expiry_left;
  free(e->topic);
  free(e->payload);
  free(e);
  return 1;
}

const char *pomo_mqtt_strerror(int rc) { return loaded ? lib.strerror(rc) : "libmosquitto is not loaded"; }

#else

int pomo_mqtt_available(void) { return 0; }
const char *pomo_mqtt_load(void) { return "libmosquitto is not installed"; }
pomo_mqtt *pomo_mqtt_new(const char *client_id, int max_packet, int keep) {
  (void)client_id;
  (void)max_packet;
  (void)keep;
  return NULL;
}
void pomo_mqtt_free(pomo_mqtt *m) { (void)m; }
int pomo_mqtt_will(pomo_mqtt *m, const char *t, const char *p, int r) { (void)m; (void)t; (void)p; (void)r; return -1; }
int pomo_mqtt_auth(pomo_mqtt *m, const char *u, const char *p) { (void)m; (void)u; (void)p; return -1; }
int pomo_mqtt_tls(pomo_mqtt *m, const char *c) { (void)m; (void)c; return -1; }
int pomo_mqtt_connect(pomo_mqtt *m, const char *h, int p, int k) { (void)m; (void)h; (void)p; (void)k; return -1; }
int pomo_mqtt_socket(pomo_mqtt *m) { (void)m; return -1; }
int pomo_mqtt_want_write(pomo_mqtt *m) { (void)m; return 0; }
int pomo_mqtt_loop_read(pomo_mqtt *m) { (void)m; return -1; }
int pomo_mqtt_loop_write(pomo_mqtt *m) { (void)m; return -1; }
int pomo_mqtt_loop_misc(pomo_mqtt *m) { (void)m; return -1; }
int pomo_mqtt_publish(pomo_mqtt *m, const char *t, const void *p, int l, int q, int r, long e) {
  (void)m; (void)t; (void)p; (void)l; (void)q; (void)r; (void)e;
  return -1;
}

int pomo_mqtt_unacked(pomo_mqtt *m) {
  (void)m;
  return 0;
}
int pomo_mqtt_subscribe(pomo_mqtt *m, const char *t, int q) { (void)m; (void)t; (void)q; return -1; }
int pomo_mqtt_disconnect(pomo_mqtt *m) { (void)m; return -1; }
int pomo_mqtt_take_connack(pomo_mqtt *m) { (void)m; return -1; }
int pomo_mqtt_take_disconnect(pomo_mqtt *m) { (void)m; return 0; }
int pomo_mqtt_next_message(pomo_mqtt *m, char *t, size_t ts, char *p, size_t ps, int *l, int *r, long *e) {
  (void)m; (void)t; (void)ts; (void)p; (void)ps; (void)l; (void)r; (void)e;
  return 0;
}
const char *pomo_mqtt_strerror(int rc) {
  (void)rc;
  return "libmosquitto is not installed";
}

#endif
