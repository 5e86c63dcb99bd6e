# Live audio for the gfir executable: --play, --monitor, --list-devices through
# PortAudio. Included by src/cli/CMakeLists.txt once the gfir_cli target exists.
if(GFIR_PORTAUDIO)
  pkg_check_modules(PORTAUDIO IMPORTED_TARGET portaudio-2.0)
  if(NOT PORTAUDIO_FOUND)
    message(FATAL_ERROR "GFIR_PORTAUDIO is ON but portaudio-2.0 was not found: install "
                        "portaudio19-dev (tools/setup.sh does) or configure with -DGFIR_PORTAUDIO=OFF")
  endif()
  find_package(Threads REQUIRED)
  target_sources(gfir_cli PRIVATE ${CMAKE_CURRENT_LIST_DIR}/live.c ${CMAKE_CURRENT_LIST_DIR}/ring.c)
  target_compile_definitions(gfir_cli PRIVATE GFIR_HAVE_LIVE)
  target_link_libraries(gfir_cli PRIVATE PkgConfig::PORTAUDIO Threads::Threads)
  # Only to silence their probing messages (PortAudio already links both).
  pkg_check_modules(GFIR_ALSA QUIET IMPORTED_TARGET alsa)
  if(GFIR_ALSA_FOUND)
    target_compile_definitions(gfir_cli PRIVATE GFIR_LIVE_ALSA)
    target_link_libraries(gfir_cli PRIVATE PkgConfig::GFIR_ALSA)
  endif()
  pkg_check_modules(GFIR_JACK QUIET IMPORTED_TARGET jack)
  if(GFIR_JACK_FOUND)
    target_compile_definitions(gfir_cli PRIVATE GFIR_LIVE_JACK)
    target_link_libraries(gfir_cli PRIVATE PkgConfig::GFIR_JACK)
  endif()
endif()
