package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// wipeInitialEnv overwrites the value of the variable name with '*' in the
// process's initial environment block, the memory /proc/PID/environ reads:
// os.Unsetenv changes only Go's copy of the environment (the runtime copies
// the block at start), so the value stayed readable there to the same user
// and root. The block's bounds come from /proc/self/stat (env_start,
// env_end: fields 50 and 51, Linux 3.5 and later) and it is written through
// /proc/self/mem, within those bounds only. It says whether it wiped.
func wipeInitialEnv(name string) bool {
	start, end, ok := envBounds()
	if !ok || end-start > 1<<20 {
		return false
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer mem.Close()
	block := make([]byte, end-start)
	if _, err := mem.ReadAt(block, int64(start)); err != nil {
		return false
	}
	wiped := false
	at := 0
	for _, v := range bytes.Split(block, []byte{0}) {
		if value, found := bytes.CutPrefix(v, []byte(name+"=")); found && len(value) > 0 {
			off := at + len(name) + 1
			if _, err := mem.WriteAt(bytes.Repeat([]byte{'*'}, len(value)), int64(start)+int64(off)); err == nil {
				wiped = true
			}
		}
		at += len(v) + 1
	}
	return wiped
}

// envBounds reads env_start and env_end from /proc/self/stat.
func envBounds() (start, end uint64, ok bool) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3 (state)
	if len(f) < 49 {
		return 0, 0, false
	}
	st, err1 := strconv.ParseUint(f[47], 10, 64)
	en, err2 := strconv.ParseUint(f[48], 10, 64)
	if err1 != nil || err2 != nil || st == 0 || en <= st {
		return 0, 0, false
	}
	return st, en, true
}
