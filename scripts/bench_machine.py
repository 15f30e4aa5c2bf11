"""What the Pillow comparison scripts print about the machine and the libraries."""
import platform
import subprocess


def cpu_model():
    """The CPU's model name from /proc/cpuinfo, or what the platform module knows."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def vips_version():
    """libvips' version from pkg-config, or '?'."""
    try:
        return subprocess.run(["pkg-config", "--modversion", "vips"], capture_output=True, text=True).stdout.strip() or "?"
    except OSError:
        return "?"
