# SPDX-License-Identifier: MIT
# Embeds the bootstrap's parts (DIR/*.py, in name order) into a C header,
# each a NUL-terminated byte array with its file name, so the recorder needs
# no Python file at run time. Run with -DDIR= -DOUTPUT=.
file(GLOB INPUTS "${DIR}/*.py")
list(SORT INPUTS)
set(arrays "")
set(table "")
set(index 0)
foreach(input ${INPUTS})
  get_filename_component(name "${input}" NAME)
  file(READ "${input}" content HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${content}")
  string(REGEX REPLACE "((0x..,){16})" "\\1\n\t" bytes "${bytes}")
  string(APPEND arrays "static const char accwatch_boot_part${index}[] = {\n\t${bytes}0x00\n};\n")
  string(APPEND table "\t{\"${name}\", accwatch_boot_part${index}},\n")
  math(EXPR index "${index} + 1")
endforeach()
file(WRITE "${OUTPUT}.tmp"
  "/* Generated from the files of recorder/boot by embed_boot.cmake: do not edit. */\n"
  "${arrays}"
  "static const struct {\n\tconst char *name;\n\tconst char *source;\n} accwatch_boot_parts[] = {\n${table}};\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
