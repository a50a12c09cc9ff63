# Compile the sketch for an AVR board with Debian's arduino-mk and gcc-avr (CI: null LED driver).
# Run from the sketch folder: make -C referee_leds -f ../avr.mk OBJDIR=...
BOARD_TAG      ?= uno
TARGET         := referee_leds
ARDUINO_DIR    ?= /usr/share/arduino
ARDMK_DIR      ?= /usr/share/arduino
AVR_TOOLS_DIR  ?= /usr
ARDUINO_QUIET  := 1
CFLAGS_STD     := -std=gnu11
CXXFLAGS_STD   := -std=gnu++11
USE_NEOPIXEL   ?= 0
CPPFLAGS       += -DDECIMAL_DIG=__DECIMAL_DIG__ -DUSE_NEOPIXEL=$(USE_NEOPIXEL) -Wall
include $(ARDMK_DIR)/Arduino.mk
