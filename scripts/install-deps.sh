#!/usr/bin/env bash
# Installs the system packages Shashin builds against, only those missing.
# Debian/Ubuntu: apt-get (sudo only when not root). macOS needs nothing: ImageIO decodes there, the
# package declares no libvips target on Apple platforms, and SQLite comes with the SDK.
set -euo pipefail

need_python=${NEED_PILLOW:-0}
# NEED_NGINX=1: nginx-light too, the server of scripts/bench-network.sh.
need_nginx=${NEED_NGINX:-0}

if [[ "$(uname -s)" == "Darwin" ]]; then
    exit 0
fi

# liblcms2-dev: the direct JPEG path calls lcms itself (libvips-dev depends on it; named here
# because CImageKernels includes lcms2.h and links lcms2, as it does libjpeg and zlib).
# libssl-dev: the test server (ImageServer) makes its HTTPS certificate with OpenSSL's libcrypto.
packages=(libvips-dev liblcms2-dev libsqlite3-dev libssl-dev pkg-config)
# python3: scripts/check-links, which follows the Markdown pages' links in `make test` (any
# python3 on the PATH will do).
command -v python3 >/dev/null || packages+=(python3)
# The benchmarks also time libvips' own vipsthumbnail, which libvips-dev only recommends, and
# read peak memory with GNU time.
[[ "$need_python" == 1 ]] && packages+=(libvips-tools time)
[[ "$need_nginx" == 1 ]] && packages+=(nginx-light)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if (( ${#missing[@]} )); then
    echo "Installing: ${missing[*]}"
    sudo=""
    if [[ $(id -u) -ne 0 ]]; then
        command -v sudo >/dev/null || { echo "Need root or sudo to install: ${missing[*]}" >&2; exit 1; }
        sudo="sudo"
    fi
    $sudo apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [[ "$need_python" == 1 ]]; then
    # Pillow from PyPI (the version the benchmarks name); Debian's python3-pil where pip may not install.
    python3 -c 'import PIL' 2>/dev/null || python3 -m pip install -q pillow 2>/dev/null || {
        sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pil >/dev/null
    }
fi
