/* Referee LED controller: the portable protocol core (no Arduino headers).
 *
 * Frames are ASCII lines "seq,CMD,arg,...*CCCC\n" with a CRC-16/CCITT-FALSE over everything
 * before the '*' (see hardware/PROTOCOL.md).  This file holds the codec and the controller's
 * behaviour (whole-state SET, HB, HELLO, ACK/NAK, host-timeout blanking, blink, brightness cap);
 * the sketch only moves bytes and pixels.  Time is passed in as milliseconds (wrapping is fine).
 */
#ifndef REFEREE_PROTO_H
#define REFEREE_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PROTO_VERSION 1

#ifndef PROTO_MAX_LEDS
#define PROTO_MAX_LEDS 64
#endif
#ifndef PROTO_MAX_LINE /* bytes including the newline; the Python side allows 512 */
#define PROTO_MAX_LINE 512
#endif
#ifndef PROTO_MAX_ARGS
#define PROTO_MAX_ARGS 70
#endif
#define PROTO_MAX_CMD 8
#define PROTO_REPLY_MAX 96 /* room for the longest reply pair (ACK + HELLO) */

enum proto_status {
    PROTO_OK = 0,
    PROTO_ERR_CRC,    /* checksum mismatch */
    PROTO_ERR_SYNTAX, /* malformed line or field */
    PROTO_ERR_RANGE,  /* LED index beyond this strip */
    PROTO_ERR_CMD,    /* unknown command */
    PROTO_ERR_LONG    /* line longer than PROTO_MAX_LINE */
};

/* NAK reason names, as on the wire: "CRC", "SYNTAX", "RANGE", "CMD", "LONG". */
const char *proto_status_name(int status);

uint16_t proto_crc16(const uint8_t *data, size_t len); /* init 0xFFFF, poly 0x1021 */

/* ---- line assembly ---------------------------------------------------------------------- */

typedef struct {
    char buf[PROTO_MAX_LINE + 1];
    uint16_t len;
    uint8_t skipping; /* inside an overlong line: drop until the newline */
} proto_reader_t;

void proto_reader_init(proto_reader_t *r);
/* Feed one byte.  Returns 1 when a line is complete (r->buf, NUL-terminated, r->len bytes,
 * newline removed), -1 when an overlong line just ended, 0 otherwise. */
int proto_reader_feed(proto_reader_t *r, uint8_t byte);

/* ---- frames ------------------------------------------------------------------------------ */

typedef struct {
    uint16_t seq;
    char cmd[PROTO_MAX_CMD + 1];
    uint8_t argc;
    const char *argv[PROTO_MAX_ARGS]; /* point into the decoded line */
} proto_frame_t;

/* Decode a line (without newline; a trailing '\r' is allowed).  Splits the line in place. */
int proto_decode(char *line, size_t len, proto_frame_t *frame);
/* Encode a frame into out (with its newline and a NUL after it).  Returns the length, or 0
 * when it does not fit or a field is not allowed. */
size_t proto_encode(char *out, size_t cap, uint16_t seq, const char *cmd, uint8_t argc, const char *const *argv);

/* ---- LED state -------------------------------------------------------------------------- */

typedef struct {
    uint8_t r, g, b, blink;
} proto_led_t;

typedef struct {
    uint8_t brightness;
    proto_led_t led[PROTO_MAX_LEDS];
} proto_state_t;

/* Parse a SET frame into a whole state for a strip of led_count LEDs (unlisted LEDs are off).
 * On an error *state holds garbage: parse into scratch and commit only on PROTO_OK. */
int proto_parse_set(const proto_frame_t *frame, uint16_t led_count, proto_state_t *state);

/* ---- the controller ---------------------------------------------------------------------- */

typedef struct {
    /* configuration */
    uint16_t led_count;
    const char *version;
    uint32_t host_timeout_ms;
    uint16_t blink_half_ms;
    uint8_t max_brightness;
    int16_t lost_led; /* blinks dim amber while the host is silent; -1: none */
    /* state */
    proto_state_t state;
    uint16_t shown_seq; /* seq of the SET on display, 0 = none */
    uint16_t tx_seq;
    uint32_t last_rx_ms;
    uint8_t host_lost;
    uint8_t dirty; /* the picture changed: render and show */
    uint32_t bad_frames;
    proto_reader_t reader;
} proto_device_t;

void proto_device_init(proto_device_t *d, uint16_t led_count, const char *version, uint32_t now_ms);
/* The HELLO frame (sent on boot and when asked).  Returns its length. */
size_t proto_device_hello(proto_device_t *d, char *out, size_t cap);
/* Feed one received byte.  When it ends a frame, the reply (ACK/NAK, or ACK and HELLO) is
 * written to out (cap >= PROTO_REPLY_MAX) and its length returned; otherwise 0. */
size_t proto_device_feed(proto_device_t *d, uint8_t byte, uint32_t now_ms, char *out, size_t cap);
/* Blank everything but the lost-host LED once the host has been silent too long. */
void proto_device_tick(proto_device_t *d, uint32_t now_ms);
/* The colour LED i shows at now_ms: blink phase and brightness cap applied. */
void proto_device_render(const proto_device_t *d, uint16_t i, uint32_t now_ms, uint8_t rgb[3]);

#ifdef __cplusplus
}
#endif
#endif
