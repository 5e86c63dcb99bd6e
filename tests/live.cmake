# Live audio: the lock-free ring on its own, and --play/--monitor end to end
# through real audio software with no sound card (a private JACK server on its
# dummy driver, ALSA's file plugin). The end-to-end tests each start their own
# server and need the CPU to themselves to keep time, so they run one at a time.

add_executable(ring_test live/ring_test.c ${PROJECT_SOURCE_DIR}/src/cli/ring.c)
find_package(Threads REQUIRED)
target_include_directories(ring_test PRIVATE ${PROJECT_SOURCE_DIR}/src/cli)
target_link_libraries(ring_test PRIVATE PkgConfig::CMOCKA Threads::Threads)
target_compile_options(ring_test PRIVATE ${GFIR_WARNINGS})
add_test(NAME ring_test COMMAND ring_test)

# The gfir target is defined later (src/cli, after tests/); its live part exists
# whenever GFIR_PORTAUDIO is on, since src/cli/live.cmake fails without PortAudio.
if(GFIR_PORTAUDIO AND EXISTS ${PROJECT_SOURCE_DIR}/src/cli/CMakeLists.txt)
  foreach(t jack_play jack_monitor signal device_lost alsa_file errors)
    add_test(NAME live_${t}
             COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/live/${t}_test.sh $<TARGET_FILE:gfir_cli>)
    set_tests_properties(live_${t} PROPERTIES
      SKIP_RETURN_CODE ${GFIR_SKIP_CODE} RUN_SERIAL TRUE TIMEOUT 90)
  endforeach()
endif()
