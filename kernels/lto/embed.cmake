# Writes the bytes of IN as a C array NAME into OUT (cmake -P), for the
# callbacks' LTO-IR fatbin that kernels/fft.cu hands to cuFFT. Eight-byte
# aligned, as a fatbin must be.
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE "${OUT}" "/* generated from ${IN} by kernels/lto/embed.cmake */\n"
  "alignas(8) static const unsigned char ${NAME}[] = {${bytes}};\n")
