# SPDX-License-Identifier: MIT
# cmake -DINPUT=FILE -DOUTPUT=FILE.c -DNAME=symbol -P embed.cmake: writes
# FILE's bytes as `const unsigned char symbol[]` and `const size_t
# symbol_len` (a byte array: no string-literal length limit, no escaping).
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_len)
math(EXPR size "${hex_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x..,){24})" "\\1\n" bytes "${bytes}")
file(WRITE "${OUTPUT}.tmp"
  "/* Generated from ${INPUT} by cmake/embed.cmake. */\n"
  "#include <stddef.h>\n"
  "const unsigned char ${NAME}[] = {\n${bytes}0x00};\n"
  "const size_t ${NAME}_len = ${size};\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
