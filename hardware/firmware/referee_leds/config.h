/* Build-time settings of the LED controller (override with -D on the compiler command line). */
#ifndef REFEREE_CONFIG_H
#define REFEREE_CONFIG_H

#ifndef LED_COUNT /* 24 points + bar + 2 trays + 2 turn lights + status */
#define LED_COUNT 30
#endif
#ifndef LED_PIN /* data line to the strip, through the 74AHCT125 level shifter */
#define LED_PIN 6
#endif
#ifndef MAX_BRIGHTNESS /* cap on the host's brightness: 30 LEDs * 60 mA * 96/255 < 0.7 A */
#define MAX_BRIGHTNESS 96
#endif
#ifndef HOST_TIMEOUT_MS /* blank alerts after this much host silence */
#define HOST_TIMEOUT_MS 3000
#endif
#ifndef BLINK_HALF_MS
#define BLINK_HALF_MS 500
#endif
#ifndef LOST_LED /* blinks dim amber while the host is silent; -1: none */
#define LOST_LED (LED_COUNT - 1)
#endif
#ifndef FIRMWARE_VERSION
#define FIRMWARE_VERSION "referee-leds-1.0"
#endif
#ifndef SERIAL_BAUD
#define SERIAL_BAUD 115200
#endif

#ifndef USE_NEOPIXEL /* 1: Adafruit_NeoPixel (install it in the IDE); 0: null driver (CI) */
#define USE_NEOPIXEL 1
#endif
#ifndef WATCHDOG_MS /* reset the controller if the loop stalls this long */
#define WATCHDOG_MS 2000
#endif

#ifndef PROTO_MAX_LEDS
#define PROTO_MAX_LEDS LED_COUNT
#endif
#ifndef PROTO_MAX_ARGS /* brightness + one token per LED: saves stack on an AVR */
#define PROTO_MAX_ARGS (LED_COUNT + 2)
#endif

#endif
