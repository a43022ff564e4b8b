# shellcheck shell=sh
# Sourced by the checkout's scripts (scripts/build, .ci/run, scripts/arm64-check): finds a Java 25 (or
# newer) development kit the way the packaged launcher (packaging/bin/rkllm-server) finds a runtime:
# $JAVA_HOME, then the JVM directory (/usr/lib/jvm, or $RKLLM_JVM_DIR), newest first, then `java` on
# PATH; each taken only if it is Java 25 or newer and has javac. A machine's default `java` is often
# older (Debian 12: 17), which is why nothing here trusts it first.

# The feature version (25) of the Java installation in $1 (a JAVA_HOME), or nothing.
jdk_version() {
    if [ -r "$1/release" ]; then
        _v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" | head -n 1)
        if [ -n "$_v" ]; then
            echo "$_v"
            return
        fi
    fi
    if [ -x "$1/bin/java" ]; then
        "$1/bin/java" -XshowSettings:properties -version 2>&1 |
            sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' | head -n 1
    fi
}

jdk_usable() {
    [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] || return 1
    _v=$(jdk_version "$1")
    [ -n "$_v" ] && [ "$_v" -ge 25 ] 2>/dev/null
}

# Sets JDK_FOUND to the home of the first usable JDK; else returns 1 with JDK_CHECKED saying what it
# looked at (for jdk_missing). Not in a subshell, or JDK_CHECKED is lost: find_jdk25 && x=$JDK_FOUND.
find_jdk25() {
    JDK_CHECKED=""
    JDK_FOUND=""
    if [ -n "${JAVA_HOME:-}" ]; then
        if jdk_usable "$JAVA_HOME"; then
            JDK_FOUND=$JAVA_HOME
            return 0
        fi
        JDK_CHECKED="$JDK_CHECKED JAVA_HOME=$JAVA_HOME (Java $(jdk_version "$JAVA_HOME"))"
    fi
    for _home in $(ls -d "${RKLLM_JVM_DIR:-/usr/lib/jvm}"/* 2>/dev/null | sort -rV); do
        [ -L "$_home" ] && continue # Debian's default-java and java-1.17.0-... links repeat real directories
        if jdk_usable "$_home"; then
            JDK_FOUND=$_home
            return 0
        fi
        JDK_CHECKED="$JDK_CHECKED $_home (Java $(jdk_version "$_home")$([ -x "$_home/bin/javac" ] || echo ', no javac'))"
    done
    if command -v java >/dev/null 2>&1; then
        _home=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
        if jdk_usable "$_home"; then
            JDK_FOUND=$_home
            return 0
        fi
        JDK_CHECKED="$JDK_CHECKED $(command -v java) (Java $(jdk_version "$_home"))"
    fi
    return 1
}

# What to do when find_jdk25 found nothing, on stderr.
jdk_missing() {
    cat >&2 <<MSG
$1: no Java 25 development kit (JDK) found; looked at:${JDK_CHECKED:- JAVA_HOME, ${RKLLM_JVM_DIR:-/usr/lib/jvm}/*, java on PATH}
  Install one, then run this again (it finds it under /usr/lib/jvm by itself):
    where the distribution has it (Debian 13 does; apt-cache policy openjdk-25-jdk-headless):
        sudo apt install openjdk-25-jdk-headless
    elsewhere (Debian 12...): Temurin 25 from Adoptium's apt repository (docs/deploy.md, step 2):
        sudo apt install temurin-25-jdk
  or point JAVA_HOME at a JDK 25 unpacked anywhere (export JAVA_HOME=/opt/jdk-25).
MSG
}
