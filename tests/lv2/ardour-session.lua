-- ardour_test.py's session, made by ardour7-lua on the dummy backend: a
-- stereo track whose first processor is the test signal (ardour-signal.lua)
-- and then gfir filter (stereo) with cutoff_hz from GFIR_CUTOFF_HZ, saved
-- into GFIR_SESSION_DIR as "gfir".
AudioEngine:set_backend("None (Dummy)", "", "")
assert(create_session(os.getenv("GFIR_SESSION_DIR"), "gfir", 48000))
local track = Session:new_audio_track(2, 2, nil, 1, "gfir", ARDOUR.PresentationInfo.max_order,
                                      ARDOUR.TrackMode.Normal, true):front()
local signal = ARDOUR.LuaAPI.new_luaproc(Session, "gfir test signal")
assert(not signal:isnil(), "no test signal script")
assert(track:add_processor_by_index(signal, 0, nil, true) == 0)
local filter = ARDOUR.LuaAPI.new_plugin(Session, "urn:gfir:lv2:filter-stereo",
                                        ARDOUR.PluginType.LV2, "")
assert(not filter:isnil(), "no gfir filter on LV2_PATH")
assert(track:add_processor_by_index(filter, 1, nil, true) == 0)
-- the control inputs in port order: type, cutoff_hz, ...
assert(ARDOUR.LuaAPI.set_processor_param(filter, 1, tonumber(os.getenv("GFIR_CUTOFF_HZ"))))
Session:save_state("", false, false, false, false, false)
close_session()
quit()
