#!/bin/sh
# e2beval's sudo: E2B's user may run `sudo` without a password, so code written for E2B calls it (`sudo echo`,
# `sudo -E pip install ...`). Inside an e2beval sandbox there is no privilege to grant: this sudo runs the
# command as the SAME unprivileged user, with the same capabilities (none), no_new_privs and seccomp filter.
# It grants nothing; a command that needs root fails exactly as it would without sudo.
# It is a plain script (mode 0555, not setuid) that the sandbox's mount plan puts first wherever a `sudo`
# could be found, so a host's real sudo never runs inside (src/local/sudo_shim.cpp, docs/sessions.md).

usage() {
    echo "usage: sudo [-bEHiknPSsv] [-C num] [-D directory] [-g group] [-h host] [-p prompt] [-T timeout]"
    echo "            [-u user] [--] command [arg ...]"
    echo "e2beval's sudo runs the command as the sandbox's own user and grants no privilege."
}

fail() {
    echo "sudo: $1" >&2
    exit 1
}

# The user's home and shell from /etc/passwd (-H, -i, -s).
passwd_field() {
    uid=$(id -u)
    while IFS=: read -r _name _password entry_uid _gid _gecos entry_home entry_shell; do
        if [ "$entry_uid" = "$uid" ]; then
            if [ "$1" = home ]; then echo "$entry_home"; else echo "$entry_shell"; fi
            return
        fi
    done </etc/passwd
}

# The external program `$1` names, as exec will find it (the shell's builtins do not count: `sudo cd` fails).
find_program() {
    case $1 in
        */*) [ -f "$1" ] && [ -x "$1" ]; return ;;
    esac
    saved_ifs=$IFS
    IFS=:
    set -f
    for entry in $PATH; do
        if [ -f "${entry:-.}/$1" ] && [ -x "${entry:-.}/$1" ]; then
            IFS=$saved_ifs
            set +f
            echo "${entry:-.}/$1"
            return 0
        fi
    done
    IFS=$saved_ifs
    set +f
    return 1
}

# sudo -s/-i pass the command to the shell with every character but letters, digits, '_', '-' and '$'
# escaped by a backslash; so does this.
shell_words() {
    words=""
    for word in "$@"; do
        escaped=$(printf '%s' "$word" | sed 's/[^A-Za-z0-9_$-]/\\&/g')
        words="${words:+$words }$escaped"
    done
    printf '%s' "$words"
}

background=0 login=0 shell=0 set_home=0 forget=0 directory="" mode=run
version="Sudo version 1.9 (e2beval: runs commands as the same user; grants no privilege)"

take_argument() {  # $1: option name, $2: the rest of its cluster, $3: the next argument
    if [ -n "$2" ]; then value=$2; shifted=1
    elif [ $# -ge 3 ]; then value=$3; shifted=2
    else fail "option requires an argument -- '$1'"
    fi
}

while [ $# -gt 0 ]; do
    case $1 in
        --) shift; break ;;
        --help) usage; exit 0 ;;
        --version) echo "$version"; exit 0 ;;
        --reset-timestamp) forget=1; shift ;;
        --preserve-env | --preserve-env=* | --non-interactive | --stdin | --preserve-groups | --askpass | --bell | \
            --user=* | --group=* | --prompt=* | --close-from=* | --role=* | --type=* | \
            --command-timeout=* | --other-user=* | --host=*) shift ;;
        --user | --group | --prompt | --close-from | --role | --type | --command-timeout | --other-user | --host)
            [ $# -ge 2 ] || fail "option '$1' requires an argument"
            shift 2 ;;
        --set-home) set_home=1; shift ;;
        --chdir=*) directory=${1#--chdir=}; shift ;;
        --chdir) [ $# -ge 2 ] || fail "option '--chdir' requires an argument"; directory=$2; shift 2 ;;
        --login) login=1; shift ;;
        --shell) shell=1; shift ;;
        --background) background=1; shift ;;
        --list) mode=list; shift ;;
        --validate | --remove-timestamp) mode=nothing; shift ;;
        --edit) fail "sudoedit is not available: edit the file directly, as the same user" ;;
        --chroot | --chroot=*) fail "--chroot is not available: this sudo grants no privilege" ;;
        --*) usage >&2; fail "unrecognized option '$1'" ;;
        -?*)
            cluster=${1#-}
            shift
            while [ -n "$cluster" ]; do
                rest=${cluster#?}
                option=${cluster%"$rest"}
                cluster=$rest
                case $option in
                    E | n | S | P | A | B) ;;  # the environment is kept and there is no password to ask
                    k) forget=1 ;;
                    H) set_home=1 ;;
                    b) background=1 ;;
                    i) login=1 ;;
                    s) shell=1 ;;
                    l) mode=list ;;
                    v | K) mode=nothing ;;
                    V) echo "$version"; exit 0 ;;
                    h)
                        if [ -z "$cluster" ] && [ $# -eq 0 ]; then usage; exit 0; fi
                        take_argument h "$cluster" "$@"; [ "$shifted" = 2 ] && shift; cluster="" ;;
                    u | g | p | C | r | t | T | U | a)
                        take_argument "$option" "$cluster" "$@"; [ "$shifted" = 2 ] && shift; cluster="" ;;
                    D)
                        take_argument D "$cluster" "$@"; [ "$shifted" = 2 ] && shift; cluster=""
                        directory=$value ;;
                    e) fail "sudoedit is not available: edit the file directly, as the same user" ;;
                    R) fail "-R (chroot) is not available: this sudo grants no privilege" ;;
                    *) usage >&2; fail "invalid option -- '$option'" ;;
                esac
            done ;;
        *) break ;;
    esac
done

case $mode in
    nothing) exit 0 ;;
    list)
        if [ $# -gt 0 ]; then find_program "$1" || exit 1; exit 0; fi
        echo "User $(id -un) may run any command as itself only: e2beval's sudo grants no privilege."
        exit 0 ;;
esac

if [ $# -eq 0 ] && [ "$login" = 0 ] && [ "$shell" = 0 ]; then
    [ "$forget" = 1 ] && exit 0  # sudo -k alone: there are no cached credentials to forget
    usage >&2
    exit 1
fi

export SUDO_USER="$(id -un)" SUDO_UID="$(id -u)" SUDO_GID="$(id -g)" SUDO_COMMAND="$*"
if [ "$set_home" = 1 ] || [ "$login" = 1 ]; then
    home=$(passwd_field home)
    [ -n "$home" ] && export HOME="$home"
fi
if [ "$login" = 1 ]; then
    cd "${HOME:-/}" || fail "unable to change directory to ${HOME:-/}"
fi
if [ -n "$directory" ]; then
    cd "$directory" || fail "unable to change directory to $directory"
fi

if [ "$login" = 1 ] || [ "$shell" = 1 ]; then
    user_shell=${SHELL:-$(passwd_field shell)}
    user_shell=${user_shell:-/bin/sh}
    login_flag=""
    [ "$login" = 1 ] && login_flag=-l
    if [ $# -gt 0 ]; then
        set -- "$user_shell" $login_flag -c "$(shell_words "$@")"
    else
        set -- "$user_shell" $login_flag
    fi
else
    find_program "$1" >/dev/null || fail "$1: command not found"
fi

if [ "$background" = 1 ]; then
    "$@" &
    exit 0
fi
exec "$@"
