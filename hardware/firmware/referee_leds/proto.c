/* Referee LED controller: the portable protocol core.  See proto.h and hardware/PROTOCOL.md. */
#include "proto.h"

#include <string.h>

static const char *const status_names[] = {"OK", "CRC", "SYNTAX", "RANGE", "CMD", "LONG"};
static const uint8_t lost_rgb[3] = {40, 16, 0};

const char *proto_status_name(int status)
{
    if (status < 0 || status > PROTO_ERR_LONG)
        return "SYNTAX";
    return status_names[status];
}

uint16_t proto_crc16(const uint8_t *data, size_t len)
{
    uint16_t crc = 0xFFFF;
    while (len--) {
        crc = (uint16_t)(crc ^ ((uint16_t)*data++ << 8));
        for (uint8_t bit = 0; bit < 8; bit++)
            crc = (uint16_t)((crc & 0x8000u) ? ((unsigned)crc << 1) ^ 0x1021u : (unsigned)crc << 1);
    }
    return crc;
}

/* ---- line assembly ---------------------------------------------------------------------- */

void proto_reader_init(proto_reader_t *r)
{
    r->len = 0;
    r->skipping = 0;
    r->buf[0] = '\0';
}

int proto_reader_feed(proto_reader_t *r, uint8_t byte)
{
    if (byte == '\n') {
        int result = r->skipping ? -1 : 1;
        r->buf[r->skipping ? 0 : r->len] = '\0';
        if (r->skipping)
            r->len = 0;
        r->skipping = 0;
        return result;
    }
    if (r->skipping)
        return 0;
    if (r->len + 2 > PROTO_MAX_LINE) { /* this byte plus the newline would not fit */
        r->skipping = 1;
        r->len = 0;
        return 0;
    }
    r->buf[r->len++] = (char)byte;
    return 0;
}

/* ---- frames ------------------------------------------------------------------------------ */

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1; /* lower case is not allowed on the wire */
}

/* "0" or [1-9][0-9]{0,4}, at most max. Returns -1 when not. */
static int32_t parse_number(const char *s, int32_t max)
{
    size_t n = strlen(s);
    int32_t value = 0;
    if (n == 0 || n > 5 || (n > 1 && s[0] == '0'))
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        value = value * 10 + (s[i] - '0');
    }
    return value <= max ? value : -1;
}

static int valid_cmd(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > PROTO_MAX_CMD)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < 'A' || s[i] > 'Z')
            return 0;
    return 1;
}

static int valid_arg(const char *s)
{
    if (*s == '\0')
        return 0;
    for (; *s; s++)
        if ((uint8_t)*s < 0x21 || (uint8_t)*s > 0x7E || *s == ',' || *s == '*')
            return 0;
    return 1;
}

int proto_decode(char *line, size_t len, proto_frame_t *frame)
{
    if (len > 0 && line[len - 1] == '\r')
        len--;
    line[len] = '\0';
    if (len + 1 > PROTO_MAX_LINE)
        return PROTO_ERR_LONG;
    char *star = NULL;
    for (size_t i = len; i-- > 0;)
        if (line[i] == '*') {
            star = line + i;
            break;
        }
    if (star == NULL || line + len - star != 5)
        return PROTO_ERR_SYNTAX;
    uint16_t want = 0;
    for (int i = 1; i <= 4; i++) {
        int v = hex_value(star[i]);
        if (v < 0)
            return PROTO_ERR_SYNTAX;
        want = (uint16_t)(want << 4 | (uint16_t)v);
    }
    size_t body = (size_t)(star - line);
    if (proto_crc16((const uint8_t *)line, body) != want)
        return PROTO_ERR_CRC;
    *star = '\0';
    for (size_t i = 0; i < body; i++)
        if ((uint8_t)line[i] < 0x21 || (uint8_t)line[i] > 0x7E || line[i] == '*')
            return PROTO_ERR_SYNTAX;
    /* split on commas: seq, cmd, args */
    const char *fields[PROTO_MAX_ARGS + 2];
    size_t count = 0;
    char *start = line;
    for (size_t i = 0; i <= body; i++) {
        if (i == body || line[i] == ',') {
            if (count == PROTO_MAX_ARGS + 2)
                return PROTO_ERR_SYNTAX;
            line[i] = '\0';
            fields[count++] = start;
            start = line + i + 1;
        }
    }
    if (count < 2)
        return PROTO_ERR_SYNTAX;
    int32_t seq = parse_number(fields[0], 0xFFFF);
    if (seq < 0 || !valid_cmd(fields[1]))
        return PROTO_ERR_SYNTAX;
    for (size_t i = 2; i < count; i++)
        if (!valid_arg(fields[i]))
            return PROTO_ERR_SYNTAX;
    frame->seq = (uint16_t)seq;
    strcpy(frame->cmd, fields[1]);
    frame->argc = (uint8_t)(count - 2);
    for (size_t i = 2; i < count; i++)
        frame->argv[i - 2] = fields[i];
    return PROTO_OK;
}

static size_t put_text(char *out, size_t at, size_t cap, const char *s)
{
    size_t n = strlen(s);
    if (at + n >= cap)
        return cap; /* marks "no room" */
    memcpy(out + at, s, n);
    return at + n;
}

static size_t put_uint(char *out, size_t at, size_t cap, uint16_t value)
{
    char digits[6];
    int n = 0;
    do {
        digits[n++] = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    if (at + (size_t)n >= cap)
        return cap;
    while (n)
        out[at++] = digits[--n];
    return at;
}

size_t proto_encode(char *out, size_t cap, uint16_t seq, const char *cmd, uint8_t argc, const char *const *argv)
{
    static const char hex[] = "0123456789ABCDEF";
    if (!valid_cmd(cmd) || argc > PROTO_MAX_ARGS)
        return 0;
    size_t at = put_uint(out, 0, cap, seq);
    at = put_text(out, at, cap, ",");
    at = put_text(out, at, cap, cmd);
    for (uint8_t i = 0; i < argc && at < cap; i++) {
        if (!valid_arg(argv[i]))
            return 0;
        at = put_text(out, at, cap, ",");
        at = put_text(out, at, cap, argv[i]);
    }
    if (at + 7 > cap || at + 6 > PROTO_MAX_LINE) /* "*CCCC\n" and the NUL */
        return 0;
    uint16_t crc = proto_crc16((const uint8_t *)out, at);
    out[at++] = '*';
    for (int shift = 12; shift >= 0; shift -= 4)
        out[at++] = hex[(crc >> shift) & 0xF];
    out[at++] = '\n';
    out[at] = '\0';
    return at;
}

/* ---- LED state -------------------------------------------------------------------------- */

int proto_parse_set(const proto_frame_t *frame, uint16_t led_count, proto_state_t *state)
{
    if (strcmp(frame->cmd, "SET") != 0 || frame->argc < 1)
        return PROTO_ERR_SYNTAX;
    int32_t brightness = parse_number(frame->argv[0], 255);
    if (brightness < 0)
        return PROTO_ERR_SYNTAX;
    int out_of_range = 0;
    memset(state, 0, sizeof *state);
    state->brightness = (uint8_t)brightness;
    for (uint8_t a = 1; a < frame->argc; a++) {
        /* index ':' RRGGBB ['~'] */
        const char *token = frame->argv[a];
        const char *colon = strchr(token, ':');
        char index_text[6];
        size_t index_len = colon ? (size_t)(colon - token) : 0;
        if (colon == NULL || index_len == 0 || index_len > 4)
            return PROTO_ERR_SYNTAX;
        memcpy(index_text, token, index_len);
        index_text[index_len] = '\0';
        int32_t index = parse_number(index_text, 9999);
        size_t rest = strlen(colon + 1);
        if (index < 0 || (rest != 6 && rest != 7) || (rest == 7 && colon[7] != '~'))
            return PROTO_ERR_SYNTAX;
        uint8_t rgb[3];
        for (int c = 0; c < 3; c++) {
            int hi = hex_value(colon[1 + 2 * c]), lo = hex_value(colon[2 + 2 * c]);
            if (hi < 0 || lo < 0)
                return PROTO_ERR_SYNTAX;
            rgb[c] = (uint8_t)(hi << 4 | lo);
        }
        uint8_t lit = rgb[0] | rgb[1] | rgb[2];
        if (index >= (int32_t)led_count || index >= PROTO_MAX_LEDS) {
            out_of_range |= lit; /* a dark LED off the strip is harmless; keep checking the syntax */
            continue;
        }
        proto_led_t *led = &state->led[index];
        led->r = rgb[0];
        led->g = rgb[1];
        led->b = rgb[2];
        led->blink = lit && rest == 7; /* a later token for the same LED wins */
    }
    return out_of_range ? PROTO_ERR_RANGE : PROTO_OK;
}

/* ---- the controller ---------------------------------------------------------------------- */

void proto_device_init(proto_device_t *d, uint16_t led_count, const char *version, uint32_t now_ms)
{
    memset(d, 0, sizeof *d);
    d->led_count = led_count > PROTO_MAX_LEDS ? PROTO_MAX_LEDS : led_count;
    d->version = version;
    d->host_timeout_ms = HOST_TIMEOUT_MS;
    d->blink_half_ms = BLINK_HALF_MS;
    d->max_brightness = MAX_BRIGHTNESS;
    d->lost_led = LOST_LED;
    d->state.brightness = 255;
    d->last_rx_ms = now_ms;
    d->dirty = 1;
    proto_reader_init(&d->reader);
}

static uint16_t next_tx(proto_device_t *d)
{
    d->tx_seq = (uint16_t)(d->tx_seq % 0xFFFF + 1);
    return d->tx_seq;
}

size_t proto_device_hello(proto_device_t *d, char *out, size_t cap)
{
    char count[6], shown[6];
    count[put_uint(count, 0, sizeof count, d->led_count)] = '\0';
    shown[put_uint(shown, 0, sizeof shown, d->shown_seq)] = '\0';
    const char *argv[4] = {d->version, count, "1", shown};
    return proto_encode(out, cap, next_tx(d), "HELLO", 4, argv);
}

static size_t reply_ack(proto_device_t *d, uint16_t acked, char *out, size_t cap)
{
    char a[6], s[6];
    a[put_uint(a, 0, sizeof a, acked)] = '\0';
    s[put_uint(s, 0, sizeof s, d->shown_seq)] = '\0';
    const char *argv[2] = {a, s};
    return proto_encode(out, cap, next_tx(d), "ACK", 2, argv);
}

static size_t reply_nak(proto_device_t *d, int32_t acked, int status, char *out, size_t cap)
{
    char a[6] = "?";
    if (acked >= 0)
        a[put_uint(a, 0, sizeof a, (uint16_t)acked)] = '\0';
    const char *argv[2] = {a, proto_status_name(status)};
    return proto_encode(out, cap, next_tx(d), "NAK", 2, argv);
}

static size_t handle_line(proto_device_t *d, uint32_t now_ms, char *out, size_t cap)
{
    proto_frame_t frame;
    int status = proto_decode(d->reader.buf, d->reader.len, &frame);
    if (status != PROTO_OK) {
        d->bad_frames++;
        return reply_nak(d, -1, status, out, cap);
    }
    d->last_rx_ms = now_ms;
    d->host_lost = 0;
    if (strcmp(frame.cmd, "SET") == 0) {
        proto_state_t next;
        status = proto_parse_set(&frame, d->led_count, &next);
        if (status != PROTO_OK)
            return reply_nak(d, frame.seq, status, out, cap);
        if (memcmp(&next, &d->state, sizeof next) != 0)
            d->dirty = 1;
        d->state = next;
        d->shown_seq = frame.seq;
        return reply_ack(d, frame.seq, out, cap);
    }
    if (strcmp(frame.cmd, "HB") == 0)
        return reply_ack(d, frame.seq, out, cap);
    if (strcmp(frame.cmd, "HELLO") == 0) {
        size_t n = reply_ack(d, frame.seq, out, cap);
        return n + proto_device_hello(d, out + n, cap - n);
    }
    return reply_nak(d, frame.seq, PROTO_ERR_CMD, out, cap);
}

size_t proto_device_feed(proto_device_t *d, uint8_t byte, uint32_t now_ms, char *out, size_t cap)
{
    int got = proto_reader_feed(&d->reader, byte);
    if (got < 0)
        d->bad_frames++;
    if (got <= 0)
        return 0;
    size_t n = handle_line(d, now_ms, out, cap);
    d->reader.len = 0;
    return n;
}

void proto_device_tick(proto_device_t *d, uint32_t now_ms)
{
    if (d->host_lost || (uint32_t)(now_ms - d->last_rx_ms) <= d->host_timeout_ms)
        return;
    d->host_lost = 1;
    memset(&d->state, 0, sizeof d->state);
    d->state.brightness = 255;
    if (d->lost_led >= 0 && d->lost_led < (int16_t)d->led_count) {
        proto_led_t *led = &d->state.led[d->lost_led];
        led->r = lost_rgb[0];
        led->g = lost_rgb[1];
        led->b = lost_rgb[2];
        led->blink = 1;
    }
    d->shown_seq = 0;
    d->dirty = 1;
}

void proto_device_render(const proto_device_t *d, uint16_t i, uint32_t now_ms, uint8_t rgb[3])
{
    const proto_led_t *led = &d->state.led[i];
    uint16_t scale = d->state.brightness < d->max_brightness ? d->state.brightness : d->max_brightness;
    if (i >= d->led_count || (led->blink && (now_ms / d->blink_half_ms) % 2 == 1)) {
        rgb[0] = rgb[1] = rgb[2] = 0;
        return;
    }
    rgb[0] = (uint8_t)(led->r * scale / 255);
    rgb[1] = (uint8_t)(led->g * scale / 255);
    rgb[2] = (uint8_t)(led->b * scale / 255);
}
