"""libsndfile through ctypes, for the tests that need what scipy's WAV reader
cannot see: MP3, Opus, FLAC and Vorbis samples, tags (sf_get_string) and
channel maps (SFC_GET_CHANNEL_MAP_INFO). The tests write their inputs and
read gfir's outputs with it; gfir itself is never used to check gfir.
"""
import ctypes
import ctypes.util

import numpy as np

_lib = ctypes.CDLL(ctypes.util.find_library("sndfile") or "libsndfile.so.1")

# sndfile.h
SFM_READ, SFM_WRITE = 0x10, 0x20
FORMATS = {
    "wav": 0x010000, "aiff": 0x020000, "wavex": 0x130000, "flac": 0x170000,
    "caf": 0x180000, "ogg": 0x200000, "mpeg": 0x230000,
}
SUBTYPES = {
    "pcm16": 0x0002, "pcm24": 0x0003, "float": 0x0006, "vorbis": 0x0060,
    "opus": 0x0064, "mp3": 0x0082,
}
STRINGS = {"title": 1, "copyright": 2, "software": 3, "artist": 4, "comment": 5,
           "date": 6, "album": 7, "license": 8, "tracknumber": 9, "genre": 0x10}
SFC_GET_CHANNEL_MAP_INFO, SFC_SET_CHANNEL_MAP_INFO = 0x1100, 0x1101
SFC_SET_COMPRESSION_LEVEL = 0x1301
SFC_SET_BITRATE_MODE, SF_BITRATE_MODE_VARIABLE = 0x1305, 2
# SF_CHANNEL_MAP_*: the ones a 5.1 layout uses (libsndfile names the front
# channels LEFT, RIGHT, CENTER in WAV masks and Apple layouts alike)
LEFT, RIGHT, CENTER, REAR_LEFT, REAR_RIGHT, LFE = 2, 3, 4, 9, 10, 11
SIDE_LEFT, SIDE_RIGHT = 14, 15


class SF_INFO(ctypes.Structure):
    _fields_ = [("frames", ctypes.c_int64), ("samplerate", ctypes.c_int),
                ("channels", ctypes.c_int), ("format", ctypes.c_int),
                ("sections", ctypes.c_int), ("seekable", ctypes.c_int)]


_lib.sf_open.restype = ctypes.c_void_p
_lib.sf_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(SF_INFO)]
_lib.sf_close.argtypes = [ctypes.c_void_p]
_lib.sf_strerror.restype = ctypes.c_char_p
_lib.sf_strerror.argtypes = [ctypes.c_void_p]
_lib.sf_readf_float.restype = ctypes.c_int64
_lib.sf_readf_float.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
_lib.sf_writef_float.restype = ctypes.c_int64
_lib.sf_writef_float.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
_lib.sf_get_string.restype = ctypes.c_char_p
_lib.sf_get_string.argtypes = [ctypes.c_void_p, ctypes.c_int]
_lib.sf_set_string.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p]
_lib.sf_command.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_int]


class Sound:
    """A file as libsndfile reads it: samples (frames x channels, float64),
    rate, the format word, the tags present and the channel map (or None)."""

    def __init__(self, path):
        info = SF_INFO()
        sf = _lib.sf_open(path.encode(), SFM_READ, ctypes.byref(info))
        if not sf:
            raise OSError(f"libsndfile cannot read {path}: {_lib.sf_strerror(None).decode()}")
        try:
            self.rate, self.channels, self.format = info.samplerate, info.channels, info.format
            chunks = []
            buf = np.empty((65536, info.channels), dtype=np.float32)
            while True:
                got = _lib.sf_readf_float(sf, buf.ctypes.data, len(buf))
                if got <= 0:
                    break
                chunks.append(buf[:got].astype(np.float64))
            self.data = (np.concatenate(chunks) if chunks
                         else np.zeros((0, info.channels)))
            self.tags = {}
            for name, code in STRINGS.items():
                value = _lib.sf_get_string(sf, code)
                if value is not None:
                    self.tags[name] = value.decode("utf-8", "replace")
            cmap = (ctypes.c_int * info.channels)()
            self.channel_map = (list(cmap) if _lib.sf_command(
                sf, SFC_GET_CHANNEL_MAP_INFO, cmap, ctypes.sizeof(cmap)) else None)
        finally:
            _lib.sf_close(sf)

    @property
    def container(self):
        return self.format & 0x0FFF0000

    @property
    def subtype(self):
        return self.format & 0x0000FFFF


def write(path, data, rate, container, subtype, tags=None, channel_map=None,
          compression=None, vbr=False):
    """Writes data (frames x channels, or frames) with libsndfile; vbr: an
    encoder's variable bit rate (MP3)."""
    data = np.asarray(data, dtype=np.float32)
    if data.ndim == 1:
        data = data[:, None]
    data = np.ascontiguousarray(data)
    info = SF_INFO(0, rate, data.shape[1], FORMATS[container] | SUBTYPES[subtype], 0, 0)
    sf = _lib.sf_open(path.encode(), SFM_WRITE, ctypes.byref(info))
    if not sf:
        raise OSError(f"libsndfile cannot write {path}: {_lib.sf_strerror(None).decode()}")
    try:
        for name, value in (tags or {}).items():
            if _lib.sf_set_string(sf, STRINGS[name], value.encode()) != 0:
                raise OSError(f"{path}: libsndfile refused the {name} tag")
        if channel_map is not None:
            cmap = (ctypes.c_int * len(channel_map))(*channel_map)
            if not _lib.sf_command(sf, SFC_SET_CHANNEL_MAP_INFO, cmap, ctypes.sizeof(cmap)):
                raise OSError(f"{path}: libsndfile refused the channel map")
        if compression is not None:
            level = ctypes.c_double(compression)
            _lib.sf_command(sf, SFC_SET_COMPRESSION_LEVEL, ctypes.byref(level),
                            ctypes.sizeof(level))
        if vbr:
            mode = ctypes.c_int(SF_BITRATE_MODE_VARIABLE)
            _lib.sf_command(sf, SFC_SET_BITRATE_MODE, ctypes.byref(mode), ctypes.sizeof(mode))
        if _lib.sf_writef_float(sf, data.ctypes.data, len(data)) != len(data):
            raise OSError(f"{path}: short write: {_lib.sf_strerror(sf).decode()}")
    finally:
        _lib.sf_close(sf)
    return path
