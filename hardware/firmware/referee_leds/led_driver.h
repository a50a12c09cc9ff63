/* The three functions the sketch needs from an LED strip driver. */
#ifndef REFEREE_LED_DRIVER_H
#define REFEREE_LED_DRIVER_H

#include <stdint.h>

void led_driver_begin(uint16_t count);
void led_driver_set(uint16_t index, uint8_t r, uint8_t g, uint8_t b); /* final colour, already capped */
void led_driver_show(void);

#endif
