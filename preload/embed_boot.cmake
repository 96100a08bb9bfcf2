# Embeds accwatch_boot.py into a C header, as a NUL-terminated byte array, so
# the recorder needs no Python file at run time. Run with -DINPUT= -DOUTPUT=.
file(READ "${INPUT}" content HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${content}")
string(REGEX REPLACE "((0x..,){16})" "\\1\n\t" bytes "${bytes}")
file(WRITE "${OUTPUT}.tmp"
  "/* Generated from accwatch_boot.py by embed_boot.cmake: do not edit. */\n"
  "static const char accwatch_boot_source[] = {\n\t${bytes}0x00\n};\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
