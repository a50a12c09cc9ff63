/* Host test driver for the C protocol core: one command per stdin line, one answer per stdout line.
 *
 *   C <hex>            CRC-16 of the bytes               -> "CRC XXXX"
 *   D <hex>            decode a line                     -> "OK seq CMD arg..." | "ERR REASON"
 *   S <hex>            decode + parse a SET              -> "SET bright tok..." | "ERR REASON"
 *   E seq CMD arg...   encode                            -> "F <hex>" | "ERR"
 *   T <ms>             set the device clock              -> "T"
 *   F <hex>            feed bytes to the device          -> "R <hex of replies>" ("R -" for none)
 *   B                  boot greeting (HELLO)             -> "R <hex>"
 *   K                  device tick (host timeout)        -> "Q ..." as below
 *   Q                  device state                      -> "Q shown lost bright tok..."
 *   P                  render every LED at the clock     -> "P r,g,b r,g,b ..."
 *
 * proto_pipe --fd N: be the controller on file descriptor N (a pty master) with the real clock,
 * printing "Q shown lost state" whenever the display changes; the link check drives it.
 *
 * Bytes travel as hex so that corrupted frames (any byte but newline) pass through unchanged.
 * The Python cross-check (crosscheck.py) drives it.
 */
#define _POSIX_C_SOURCE 200809L
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proto.h"

static proto_device_t device;
static uint32_t now_ms;

static size_t unhex(const char *text, char *out, size_t cap)
{
    size_t n = 0;
    while (text[0] && text[1] && n < cap) {
        unsigned value;
        if (sscanf(text, "%2x", &value) != 1)
            break;
        out[n++] = (char)value;
        text += 2;
    }
    return n;
}

static void print_hex(const char *data, size_t len)
{
    for (size_t i = 0; i < len; i++)
        printf("%02X", (unsigned char)data[i]);
}

static void print_state(const proto_state_t *state, uint16_t count)
{
    printf("%u", state->brightness);
    for (uint16_t i = 0; i < count; i++) {
        const proto_led_t *led = &state->led[i];
        if (led->r | led->g | led->b)
            printf(" %u:%02X%02X%02X%s", i, led->r, led->g, led->b, led->blink ? "~" : "");
    }
}

static uint32_t clock_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint32_t)((uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u);
}

static int serve(int fd)
{
    static char reply[PROTO_REPLY_MAX];
    uint8_t data[256];
    proto_device_init(&device, LED_COUNT, FIRMWARE_VERSION, clock_ms());
    size_t n = proto_device_hello(&device, reply, sizeof reply);
    if (write(fd, reply, n) < 0)
        return 1;
    for (;;) {
        struct pollfd pfd = {fd, POLLIN, 0};
        int ready = poll(&pfd, 1, 20);
        uint32_t now = clock_ms();
        if (ready > 0) {
            ssize_t got = read(fd, data, sizeof data);
            if (got <= 0)
                return 0; /* the other side went away */
            for (ssize_t i = 0; i < got; i++) {
                n = proto_device_feed(&device, data[i], now, reply, sizeof reply);
                if (n > 0 && write(fd, reply, n) < 0)
                    return 0;
            }
        }
        proto_device_tick(&device, now);
        if (device.dirty) {
            device.dirty = 0;
            printf("Q %u %u ", device.shown_seq, device.host_lost);
            print_state(&device.state, device.led_count);
            printf("\n");
            fflush(stdout);
        }
    }
}

int main(int argc, char **argv)
{
    static char line[4 * PROTO_MAX_LINE + 64];
    static char buf[2 * PROTO_MAX_LINE + 8];
    static char out[16384];
    if (argc == 3 && strcmp(argv[1], "--fd") == 0)
        return serve(atoi(argv[2]));
    proto_device_init(&device, LED_COUNT, FIRMWARE_VERSION, 0);
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        const char *arg = line[1] == ' ' ? line + 2 : line + 1;
        proto_frame_t frame;
        switch (line[0]) {
        case 'C': {
            size_t n = unhex(arg, buf, sizeof buf);
            printf("CRC %04X", proto_crc16((const uint8_t *)buf, n));
            break;
        }
        case 'D':
        case 'S': {
            size_t n = unhex(arg, buf, PROTO_MAX_LINE * 2);
            buf[n] = '\0';
            int status = proto_decode(buf, n, &frame);
            proto_state_t state;
            if (status == PROTO_OK && line[0] == 'S')
                status = proto_parse_set(&frame, LED_COUNT, &state);
            if (status != PROTO_OK) {
                printf("ERR %s", proto_status_name(status));
            } else if (line[0] == 'S') {
                printf("SET ");
                print_state(&state, LED_COUNT);
            } else {
                printf("OK %u %s", frame.seq, frame.cmd);
                for (uint8_t i = 0; i < frame.argc; i++)
                    printf(" %s", frame.argv[i]);
            }
            break;
        }
        case 'E': {
            char *fields[PROTO_MAX_ARGS + 2];
            int count = 0;
            strncpy(buf, arg, sizeof buf - 1);
            buf[sizeof buf - 1] = '\0';
            for (char *tok = strtok(buf, " "); tok && count < PROTO_MAX_ARGS + 2; tok = strtok(NULL, " "))
                fields[count++] = tok;
            size_t n = count >= 2 ? proto_encode(out, sizeof out, (uint16_t)atoi(fields[0]), fields[1],
                                                 (uint8_t)(count - 2), (const char *const *)fields + 2)
                                  : 0;
            if (n) {
                printf("F ");
                print_hex(out, n);
            } else {
                printf("ERR");
            }
            break;
        }
        case 'T':
            now_ms = (uint32_t)strtoul(arg, NULL, 10);
            printf("T");
            break;
        case 'F':
        case 'B': {
            size_t n = line[0] == 'F' ? unhex(arg, buf, sizeof buf) : 0, total = 0;
            if (line[0] == 'B')
                total = proto_device_hello(&device, out, sizeof out);
            for (size_t i = 0; i < n; i++) {
                if (total + PROTO_REPLY_MAX > sizeof out) {
                    fprintf(stderr, "reply buffer full\n");
                    return 1;
                }
                total += proto_device_feed(&device, (uint8_t)buf[i], now_ms, out + total, sizeof out - total);
            }
            printf("R ");
            if (total)
                print_hex(out, total);
            else
                printf("-");
            break;
        }
        case 'K':
        case 'Q':
            if (line[0] == 'K')
                proto_device_tick(&device, now_ms);
            printf("Q %u %u ", device.shown_seq, device.host_lost);
            print_state(&device.state, device.led_count);
            break;
        case 'P':
            printf("P");
            for (uint16_t i = 0; i < device.led_count; i++) {
                uint8_t rgb[3];
                proto_device_render(&device, i, now_ms, rgb);
                printf(" %u,%u,%u", rgb[0], rgb[1], rgb[2]);
            }
            break;
        default:
            printf("ERR unknown command");
        }
        printf("\n");
        fflush(stdout);
    }
    return 0;
}
