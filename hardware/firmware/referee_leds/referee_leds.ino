/* Referee LED controller: USB serial in, WS2812 strip out.
 *
 * All protocol and display logic is in proto.c (tested on the host against the Python side);
 * this sketch moves bytes and pixels, keeps the watchdog fed, and never calls show() in the
 * middle of an incoming line (on AVR, show() blocks interrupts and serial bytes would be lost).
 * Settings: config.h.  Protocol: hardware/PROTOCOL.md.
 */
#include "config.h"
#include "led_driver.h"
#include "proto.h"

#if defined(__AVR__)
#include <avr/wdt.h>
#endif

static proto_device_t device;
static char reply[PROTO_REPLY_MAX];
static int8_t last_phase = -1;
static uint32_t due_since;

static void watchdog_start()
{
#if defined(__AVR__)
    wdt_enable(WDTO_2S);
#elif defined(ARDUINO_ARCH_RP2040)
    rp2040.wdt_begin(WATCHDOG_MS);
#endif
}

static void watchdog_kick()
{
#if defined(__AVR__)
    wdt_reset();
#elif defined(ARDUINO_ARCH_RP2040)
    rp2040.wdt_reset();
#endif
}

static void render(uint32_t now)
{
    uint8_t rgb[3];
    for (uint16_t i = 0; i < device.led_count; i++) {
        proto_device_render(&device, i, now, rgb);
        led_driver_set(i, rgb[0], rgb[1], rgb[2]);
    }
    led_driver_show();
}

void setup()
{
#if defined(__AVR__)
    MCUSR = 0; /* clear a watchdog reset flag so the bootloader does not loop */
    wdt_disable();
#endif
    Serial.begin(SERIAL_BAUD);
    led_driver_begin(LED_COUNT);
    uint32_t now = millis();
    proto_device_init(&device, LED_COUNT, FIRMWARE_VERSION, now);
    render(now);
    size_t n = proto_device_hello(&device, reply, sizeof reply);
    Serial.write((const uint8_t *)reply, n);
    watchdog_start();
}

void loop()
{
    watchdog_kick();
    uint32_t now = millis();
    for (uint8_t budget = 64; budget > 0 && Serial.available() > 0; budget--) {
        size_t n = proto_device_feed(&device, (uint8_t)Serial.read(), now, reply, sizeof reply);
        if (n > 0)
            Serial.write((const uint8_t *)reply, n);
    }
    proto_device_tick(&device, now);
    int8_t phase = (int8_t)((now / device.blink_half_ms) & 1);
    if (!device.dirty && phase == last_phase) {
        due_since = now;
        return;
    }
    /* Wait for a quiet line (the host waits for our ACK), but not forever. */
    bool quiet = device.reader.len == 0 && Serial.available() == 0;
    if (quiet || now - due_since > 100) {
        render(now);
        device.dirty = 0;
        last_phase = phase;
        due_since = now;
    }
}
