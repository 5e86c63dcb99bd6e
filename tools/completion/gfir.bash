# bash completion for gfir: options, their values (presets from the gfir being
# completed, so a user's own presets are offered too; kernels, backends,
# formats), and files elsewhere. Installed by `cmake --install` (which
# tools/setup.sh runs) as share/bash-completion/completions/gfir, where
# bash-completion finds it; tests/cli/test_install.py checks the option and
# kernel lists here against `gfir --help`.

_gfir_options="--preset --taps --ir --true-stereo --gain --normalize --ir-trim --wet --dry
--min-phase --max-taps --align --format --no-dither
--list-presets --describe --response --rate --backend --kernel --gpu --block --no-fold
--play --monitor --list-devices --device --input-device --period --duration
--channels --crossfade --gpus --quiet --verbose --debug --version --help"
_gfir_kernels="auto gold direct fft basic constant tiled cached"
_gfir_containers="wav flac mp3 opus ogg aiff caf w64 rf64 au"
_gfir_samples="pcm8 pcm16 pcm24 pcm32 float double ulaw alaw vorbis opus mp3"

# Replies with the words of $2 that start with $1.
_gfir_words() {
    local IFS=$' \t\n'
    # shellcheck disable=SC2207
    COMPREPLY=($(compgen -W "$2" -- "$1"))
}

_gfir_files() { # $1: the word; $2: a glob of the names to offer, or nothing
    local IFS=$'\n'
    if [ -n "${2:-}" ]; then
        # shellcheck disable=SC2207
        COMPREPLY=($(compgen -d -- "$1") $(compgen -f -X "!$2" -- "$1"))
    else
        # shellcheck disable=SC2207
        COMPREPLY=($(compgen -f -- "$1"))
    fi
    compopt -o filenames 2>/dev/null
}

# The value of --format: a container, or container:samples after the colon.
# Bash splits words at ':' (COMP_WORDBREAKS), so only the part after it is
# replaced.
_gfir_format() {
    local cur=$1 container
    if [[ $cur == *:* ]]; then
        container=${cur%%:*}
        _gfir_words "${cur#*:}" "$_gfir_samples"
        if [[ $COMP_WORDBREAKS != *:* ]]; then
            COMPREPLY=("${COMPREPLY[@]/#/$container:}")
        fi
    else
        _gfir_words "$cur" "$_gfir_containers"
    fi
}

_gfir() {
    local cur prev gfir presets
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    # With ':' a word break, "--format wav:" arrives as "--format" "wav" ":" "".
    if [ "$cur" = ":" ] || [ "$prev" = ":" ]; then
        local i=$((COMP_CWORD - 1)) value=$cur
        [ "$cur" = ":" ] && value=""
        [ "$prev" = ":" ] && i=$((COMP_CWORD - 2))
        if [ "${COMP_WORDS[i - 1]}" = "--format" ] || [ "${COMP_WORDS[i - 1]}" = "-f" ]; then
            _gfir_words "$value" "$_gfir_samples"
            return
        fi
        COMPREPLY=()
        return
    fi
    case $prev in
    -p | --preset)
        gfir=${COMP_WORDS[0]}
        presets=$("$gfir" --list-presets 2>/dev/null | awk '{print $1}')
        _gfir_words "$cur" "$presets"
        local IFS=$'\n'
        # shellcheck disable=SC2207
        COMPREPLY+=($(compgen -f -X '!*.ini' -- "$cur") $(compgen -d -- "$cur"))
        return ;;
    -t | --taps | -i | --ir) _gfir_files "$cur"; return ;;
    --response) _gfir_files "$cur" '*.svg'; return ;;
    -a | --align) _gfir_words "$cur" "same causal full"; return ;;
    -n | --normalize) _gfir_words "$cur" "none peak energy"; return ;;
    --true-stereo) _gfir_words "$cur" "ll,lr,rl,rr ll,rl,lr,rr"; return ;;
    -b | --backend) _gfir_words "$cur" "auto cpu cuda"; return ;;
    -k | --kernel) _gfir_words "$cur" "$_gfir_kernels"; return ;;
    -f | --format) _gfir_format "$cur"; return ;;
    --rate) _gfir_words "$cur" "44100 48000 88200 96000"; return ;;
    --gpus) _gfir_words "$cur" "all 0,1"; return ;;
    -g | --gain | --ir-trim | --block | --period | --duration | --channels | --crossfade | \
        --device | --input-device | --max-taps | --gpu)
        COMPREPLY=(); return ;;
    esac
    if [[ $cur == -* ]]; then
        _gfir_words "$cur" "$_gfir_options"
    else
        _gfir_files "$cur"
    fi
}

complete -F _gfir gfir
