/* platform_keys: the engine's key codes and key names, the one vocabulary for keys outside engine/platform
 * (key events, controls.ini, input scripts). A key is a platform_key: an int whose value names one key of
 * the keyboard by what it types (the letter keys are their lower-case letters, '[' is '[') or, for keys that
 * type nothing, by the position bit plus a USB HID position number.
 * Knows nothing of windows, events or what a key does; needs no setup (works before and without a window). */
#ifndef MARIONETTE_PLATFORM_KEYS_H
#define MARIONETTE_PLATFORM_KEYS_H

#include <stdint.h>

typedef int32_t platform_key;

/* Keys that type nothing: the position bit and the USB HID usage number of the key. */
#define PLATFORM_KEY_AT_POSITION(usage) ((platform_key)((1 << 30) | (usage)))

/* The keys code names; any other key still has a code (from an event or platform_key_from_name). The values
 * are fixed: tests and tools may write them down. */
enum {
    PLATFORM_KEY_UNKNOWN = 0,
    PLATFORM_KEY_BACKSPACE = '\b',
    PLATFORM_KEY_TAB = '\t',
    PLATFORM_KEY_RETURN = '\r',
    PLATFORM_KEY_ESCAPE = 27,
    PLATFORM_KEY_SPACE = ' ',
    PLATFORM_KEY_HASH = '#',
    PLATFORM_KEY_QUOTE = '\'',
    PLATFORM_KEY_COMMA = ',',
    PLATFORM_KEY_MINUS = '-',
    PLATFORM_KEY_PERIOD = '.',
    PLATFORM_KEY_SLASH = '/',
    PLATFORM_KEY_0 = '0', PLATFORM_KEY_1, PLATFORM_KEY_2, PLATFORM_KEY_3, PLATFORM_KEY_4,
    PLATFORM_KEY_5, PLATFORM_KEY_6, PLATFORM_KEY_7, PLATFORM_KEY_8, PLATFORM_KEY_9,
    PLATFORM_KEY_SEMICOLON = ';',
    PLATFORM_KEY_EQUALS = '=',
    PLATFORM_KEY_LEFTBRACKET = '[',
    PLATFORM_KEY_BACKSLASH = '\\',
    PLATFORM_KEY_RIGHTBRACKET = ']',
    PLATFORM_KEY_BACKQUOTE = '`',
    PLATFORM_KEY_A = 'a', PLATFORM_KEY_B, PLATFORM_KEY_C, PLATFORM_KEY_D, PLATFORM_KEY_E, PLATFORM_KEY_F,
    PLATFORM_KEY_G, PLATFORM_KEY_H, PLATFORM_KEY_I, PLATFORM_KEY_J, PLATFORM_KEY_K, PLATFORM_KEY_L,
    PLATFORM_KEY_M, PLATFORM_KEY_N, PLATFORM_KEY_O, PLATFORM_KEY_P, PLATFORM_KEY_Q, PLATFORM_KEY_R,
    PLATFORM_KEY_S, PLATFORM_KEY_T, PLATFORM_KEY_U, PLATFORM_KEY_V, PLATFORM_KEY_W, PLATFORM_KEY_X,
    PLATFORM_KEY_Y, PLATFORM_KEY_Z,
    PLATFORM_KEY_DELETE = 127,

    PLATFORM_KEY_CAPSLOCK = PLATFORM_KEY_AT_POSITION(57),
    PLATFORM_KEY_F1 = PLATFORM_KEY_AT_POSITION(58), PLATFORM_KEY_F2, PLATFORM_KEY_F3, PLATFORM_KEY_F4,
    PLATFORM_KEY_F5, PLATFORM_KEY_F6, PLATFORM_KEY_F7, PLATFORM_KEY_F8, PLATFORM_KEY_F9, PLATFORM_KEY_F10,
    PLATFORM_KEY_F11, PLATFORM_KEY_F12,
    PLATFORM_KEY_PRINTSCREEN = PLATFORM_KEY_AT_POSITION(70),
    PLATFORM_KEY_SCROLLLOCK, PLATFORM_KEY_PAUSE, PLATFORM_KEY_INSERT, PLATFORM_KEY_HOME, PLATFORM_KEY_PAGEUP,
    PLATFORM_KEY_END = PLATFORM_KEY_AT_POSITION(77),
    PLATFORM_KEY_PAGEDOWN, PLATFORM_KEY_RIGHT, PLATFORM_KEY_LEFT, PLATFORM_KEY_DOWN, PLATFORM_KEY_UP,
    PLATFORM_KEY_NUMLOCK, PLATFORM_KEY_KP_DIVIDE, PLATFORM_KEY_KP_MULTIPLY, PLATFORM_KEY_KP_MINUS,
    PLATFORM_KEY_KP_PLUS, PLATFORM_KEY_KP_ENTER,
    PLATFORM_KEY_KP_1, PLATFORM_KEY_KP_2, PLATFORM_KEY_KP_3, PLATFORM_KEY_KP_4, PLATFORM_KEY_KP_5,
    PLATFORM_KEY_KP_6, PLATFORM_KEY_KP_7, PLATFORM_KEY_KP_8, PLATFORM_KEY_KP_9, PLATFORM_KEY_KP_0,
    PLATFORM_KEY_KP_PERIOD,
    PLATFORM_KEY_LCTRL = PLATFORM_KEY_AT_POSITION(224),
    PLATFORM_KEY_LSHIFT, PLATFORM_KEY_LALT, PLATFORM_KEY_LGUI, PLATFORM_KEY_RCTRL, PLATFORM_KEY_RSHIFT,
    PLATFORM_KEY_RALT, PLATFORM_KEY_RGUI,
};

/* Modifier keys held with a key event (platform_event.modifiers), either side. */
enum {
    PLATFORM_MOD_SHIFT = 1 << 0,
    PLATFORM_MOD_CTRL = 1 << 1,
    PLATFORM_MOD_ALT = 1 << 2,
    PLATFORM_MOD_GUI = 1 << 3, /* the Windows, Command or Super key */
};

/* The key named name, in the keyboard's English names, case-insensitive: "W", "Up", "Left Shift", "F1",
 * "Keypad 8", "Escape", and any one character for the key that types it ("[", ","). PLATFORM_KEY_UNKNOWN
 * for NULL, "" or a name that is no key. Any one UTF-8 character is also taken as the key that types it:
 * callers that want ASCII names check that first. */
platform_key platform_key_from_name(const char *name);

/* The name platform_key_from_name reads back as key ("W", "Left Shift", "Keypad 8", ","); "" for
 * PLATFORM_KEY_UNKNOWN and any key that has no name. The text lives until the next call (one buffer for
 * the process: call from one thread). */
const char *platform_key_name(platform_key key);

#endif
