ardour {
	["type"]    = "dsp",
	name        = "gfir test signal",
	category    = "Utility",
	license     = "MIT",
	author      = "gfir tests",
	description = [[ardour_test.py's input: one period of noise per channel,
from a fixed linear congruential generator, repeated without end. The
values are multiples of 2^-24 in [-0.5, 0.5), exact in float, so the test
makes the same table in Python.]]
}

local PERIOD = 4801
local tables = {}
local at = 0

function dsp_ioconfig ()
	return { { audio_in = 2, audio_out = 2 } }
end

function dsp_init (rate)
	local state = 12345
	for c = 1, 2 do
		tables[c] = {}
		for k = 1, PERIOD do
			state = (state * 1103515245 + 12345) % 2147483648
			tables[c][k] = (state % 16777216) / 16777216.0 - 0.5
		end
	end
end

function dsp_run (ins, outs, n_samples)
	for c = 1, 2 do
		local o = outs[c]:array()
		local t = tables[c]
		local k = at
		for i = 1, n_samples do
			o[i] = t[k + 1]
			k = k + 1
			if k == PERIOD then k = 0 end
		end
	end
	at = (at + n_samples) % PERIOD
end
