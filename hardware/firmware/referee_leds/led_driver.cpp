/* LED drivers: Adafruit_NeoPixel for WS2812/SK6812 strips, or a null driver (CI, bring-up). */
#include "config.h"
#include "led_driver.h"

#if USE_NEOPIXEL
#include <Adafruit_NeoPixel.h>

static Adafruit_NeoPixel strip(LED_COUNT, LED_PIN, NEO_GRB + NEO_KHZ800);

void led_driver_begin(uint16_t count)
{
    (void)count;
    strip.begin();
    strip.clear();
    strip.show();
}

void led_driver_set(uint16_t index, uint8_t r, uint8_t g, uint8_t b)
{
    strip.setPixelColor(index, r, g, b);
}

void led_driver_show(void)
{
    strip.show();
}

#else /* null driver: the protocol runs, nothing lights */

void led_driver_begin(uint16_t count)
{
    (void)count;
}

void led_driver_set(uint16_t index, uint8_t r, uint8_t g, uint8_t b)
{
    (void)index;
    (void)r;
    (void)g;
    (void)b;
}

void led_driver_show(void) {}

#endif
