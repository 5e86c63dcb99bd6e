"""gfir filter in lilv's lv2apply, which offers a plugin no host feature and
runs it one frame per call: for each preset, mono and stereo, the output must
be `gfir IN OUT --preset NAME --align causal` to float rounding (relative L2
error under 1e-5: both run the same float taps through exact causal
convolution; a different design or a frame of shift is far above it).
Then with gain_db and minimum phase against the design the command line
makes with --gain and --min-phase.
    lv2apply_test.py GFIR   (LV2_PATH names the built bundle's folder)
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import scipy.io.wavfile as wavfile

GFIR = sys.argv[1]
PRESETS = {
    "lowpass": {"type": 0, "cutoff_hz": 4000, "transition_hz": 400, "attenuation_db": 80},
    "highpass": {"type": 1, "cutoff_hz": 200, "transition_hz": 100, "attenuation_db": 80},
    "bandpass": {"type": 2, "low_hz": 300, "high_hz": 3400, "transition_hz": 200,
                 "attenuation_db": 80},
    "bandstop": {"type": 3, "low_hz": 2000, "high_hz": 4000, "transition_hz": 400,
                 "attenuation_db": 80},
}


def read(path):
    _, data = wavfile.read(path)
    return data.astype(np.float64)


def check(tmp, channels, preset, controls, cli_extra, rate=48000):
    rng = np.random.default_rng(len(preset) * 10 + channels)
    x = (rng.standard_normal((9973, channels)) * 0.25).astype(np.float32)
    src = os.path.join(tmp, "in.wav")
    wavfile.write(src, rate, x if channels > 1 else x[:, 0])
    plugin = "urn:gfir:lv2:filter-" + ("stereo" if channels == 2 else "mono")
    args = ["lv2apply", "-i", src, "-o", os.path.join(tmp, "lv2.wav")]
    for k, v in controls.items():
        args += ["-c", k, str(v)]
    subprocess.run(args + [plugin], check=True)
    subprocess.run([GFIR, src, os.path.join(tmp, "cli.wav"), "--preset", preset, "--align",
                    "causal", "-q"] + cli_extra, check=True)
    a, b = read(os.path.join(tmp, "lv2.wav")), read(os.path.join(tmp, "cli.wav"))
    assert a.shape == b.shape, (a.shape, b.shape)
    err = np.linalg.norm(a - b) / np.linalg.norm(b)
    print(f"{plugin} {preset} {' '.join(cli_extra)}: relative L2 error {err:.3g}")
    assert err < 1e-5, err


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for preset, controls in PRESETS.items():
            for channels in (1, 2):
                check(tmp, channels, preset, controls, [])
        check(tmp, 2, "lowpass", dict(PRESETS["lowpass"], gain_db=-7.5), ["--gain", "-7.5"])
        check(tmp, 1, "bandpass", dict(PRESETS["bandpass"], phase=1), ["--min-phase"])


main()
