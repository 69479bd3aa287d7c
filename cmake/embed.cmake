# embed.cmake -- write a C file that holds text files as NUL-terminated
# strings, for data built into the binary (nothing is read at run time).
#
#   cmake -DOUT=<file.c> -DFUNC=<function> -DFILES=<a|b|...> -P embed.cmake
#
# FUNC becomes `const char *const *FUNC(void)`, the texts in the order of
# FILES, then NULL; FUNC_names the same for the files' base names.
string(REPLACE "|" ";" files "${FILES}")
set(body "/* Generated from the files below by cmake/embed.cmake: do not edit. */\n")
set(list "")
set(names "")
set(i 0)
foreach(f ${files})
  get_filename_component(name ${f} NAME)
  file(READ ${f} hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
  string(APPEND body "/* ${name} */\nstatic const char text${i}[] = {${hex}0};\n")
  string(APPEND list "text${i}, ")
  string(APPEND names "\"${name}\", ")
  math(EXPR i "${i} + 1")
endforeach()
string(APPEND body "const char *const *${FUNC}(void);\nconst char *const *${FUNC}_names(void);\n")
string(APPEND body "const char *const *${FUNC}(void)\n{\n    static const char *const all[] = {${list}0};\n    return all;\n}\n")
string(APPEND body "const char *const *${FUNC}_names(void)\n{\n    static const char *const all[] = {${names}0};\n    return all;\n}\n")
file(WRITE ${OUT}.tmp "${body}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.tmp)
