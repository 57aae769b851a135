package suitecheck

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Invocation is one `go test` command a script runs.
type Invocation struct {
	Where    string   // file:line of the command
	Packages []string // patterns as written: ./..., ./reliability/
	Run      string   // -run, "" when absent
	Skip     string   // -skip, "" when absent
	Tags     []string // -tags
	// Env holds the variables set (non-empty) for the command: exported
	// before it in its script or its callers, or assigned on its line.
	Env map[string]bool
}

// HasTag reports whether the command builds with tag.
func (inv Invocation) HasTag(tag string) bool {
	for _, t := range inv.Tags {
		if t == tag {
			return true
		}
	}
	return false
}

// goTestValueFlags are the `go test` flags that take a value when written
// "-flag value" (build flags and test flags); any other flag is a boolean.
var goTestValueFlags = map[string]bool{
	"run": true, "skip": true, "tags": true, "timeout": true, "p": true, "count": true, "parallel": true,
	"cpu": true, "bench": true, "benchtime": true, "coverprofile": true, "covermode": true, "coverpkg": true,
	"o": true, "exec": true, "ldflags": true, "gcflags": true, "asmflags": true, "mod": true, "modfile": true,
	"fuzz": true, "fuzztime": true, "fuzzminimizetime": true, "list": true, "shuffle": true, "outputdir": true,
	"memprofile": true, "cpuprofile": true, "blockprofile": true, "mutexprofile": true, "trace": true,
	"vet": true, "C": true, "pkgdir": true, "toolexec": true, "overlay": true, "pgo": true, "json": false,
}

// reader follows scripts and Makefile targets from the entry points.
type reader struct {
	root     string
	makefile map[string]makeTarget // read once
	seen     map[string]bool       // scripts and targets being read, against cycles
	shell    map[string]bool       // shell variables set so far, exported or not
	values   map[string]string     // their values, where literal (no expansion in them)
	out      []Invocation
}

type makeTarget struct {
	deps    []string
	recipe  []string
	where   []string // file:line of each recipe line
	defined bool
}

// ReadInvocations returns every `go test` command that `make TARGET` runs for
// each target, following the scripts and make targets they call. Control flow
// is ignored: every command of a script counts as run, and a variable counts
// as set from its export on, in file order.
func ReadInvocations(root string, targets ...string) ([]Invocation, error) {
	r := &reader{root: root, seen: map[string]bool{}, shell: map[string]bool{}, values: map[string]string{}}
	for _, t := range targets {
		if err := r.makeTarget(t, map[string]bool{}); err != nil {
			return nil, err
		}
	}
	return r.out, nil
}

var makeRule = regexp.MustCompile(`^([A-Za-z0-9_.-]+)\s*:([^=].*)?$`)

func (r *reader) loadMakefile() error {
	if r.makefile != nil {
		return nil
	}
	path := filepath.Join(r.root, "Makefile")
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading the Makefile: %w", err)
	}
	r.makefile = map[string]makeTarget{}
	current := ""
	for i, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "\t") && current != "":
			t := r.makefile[current]
			t.recipe = append(t.recipe, strings.TrimPrefix(strings.TrimSpace(line), "@"))
			t.where = append(t.where, fmt.Sprintf("Makefile:%d", i+1))
			r.makefile[current] = t
		case makeRule.MatchString(line) && !strings.HasPrefix(line, "."):
			m := makeRule.FindStringSubmatch(line)
			current = m[1]
			r.makefile[current] = makeTarget{deps: strings.Fields(m[2]), defined: true}
		case strings.TrimSpace(line) != "" && !strings.HasPrefix(strings.TrimSpace(line), "#"):
			current = ""
		}
	}
	return nil
}

func (r *reader) makeTarget(name string, env map[string]bool) error {
	if err := r.loadMakefile(); err != nil {
		return err
	}
	t, ok := r.makefile[name]
	if !ok {
		return fmt.Errorf("Makefile has no target %s", name)
	}
	if r.seen["make "+name] {
		return nil
	}
	r.seen["make "+name] = true
	defer delete(r.seen, "make "+name)
	for _, d := range t.deps {
		if _, ok := r.makefile[d]; ok {
			if err := r.makeTarget(d, env); err != nil {
				return err
			}
		}
	}
	for i, line := range t.recipe {
		line = strings.ReplaceAll(line, "$(GO)", "go")
		line = strings.ReplaceAll(line, "$$", "$")
		if err := r.commandLine(line, t.where[i], copyEnv(env)); err != nil {
			return err
		}
	}
	return nil
}

// script reads a shell script: its exports carry on to the commands after
// them and to what those commands call.
func (r *reader) script(rel string, env map[string]bool) error {
	if r.seen[rel] {
		return nil
	}
	r.seen[rel] = true
	defer delete(r.seen, rel)
	f, err := os.Open(filepath.Join(r.root, rel))
	if err != nil {
		return fmt.Errorf("reading %s: %w", rel, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n, start := 0, 0
	var logical strings.Builder
	for sc.Scan() {
		n++
		line := sc.Text()
		if logical.Len() == 0 {
			start = n
		}
		if cont, ok := strings.CutSuffix(line, `\`); ok {
			logical.WriteString(cont + " ")
			continue
		}
		logical.WriteString(line)
		text := strings.TrimSpace(logical.String())
		logical.Reset()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		if err := r.commandLine(text, fmt.Sprintf("%s:%d", rel, start), env); err != nil {
			return err
		}
	}
	return sc.Err()
}

// commandLine reads one logical shell line: its commands, separated by
// pipes, && and ;, each with its own leading assignments.
func (r *reader) commandLine(line, where string, env map[string]bool) error {
	for _, words := range splitCommands(line) {
		if err := r.command(words, where, env); err != nil {
			return err
		}
	}
	return nil
}

var assignment = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=(.*)$`)

func (r *reader) command(words []string, where string, env map[string]bool) error {
	for len(words) > 0 && shellKeywords[words[0]] {
		words = words[1:]
	}
	local := copyEnv(env)
	i := 0
	for ; i < len(words); i++ {
		m := assignment.FindStringSubmatch(words[i])
		if m == nil {
			break
		}
		local[m[1]] = r.nonEmpty(m[2], env)
	}
	if i == len(words) { // only assignments: shell variables
		for _, w := range words {
			m := assignment.FindStringSubmatch(w)
			r.remember(m[1], m[2])
		}
	}
	words = words[i:]
	for j := range words {
		words[j] = r.expand(words[j])
	}
	if len(words) == 0 {
		// Plain shell variables: not in the environment of commands, but
		// their values may be.
		for k, v := range local {
			if !env[k] && v {
				r.shell[k] = true
			}
		}
		return nil
	}
	switch cmd := strings.Trim(words[0], `"'`); {
	case cmd == "export":
		for _, w := range words[1:] {
			if m := assignment.FindStringSubmatch(w); m != nil {
				env[m[1]] = r.nonEmpty(m[2], env)
				r.remember(m[1], m[2])
			}
		}
	case cmd == "unset":
		for _, w := range words[1:] {
			delete(env, w)
		}
	case cmd == "go" && len(words) > 1 && words[1] == "test":
		inv, err := parseGoTest(words[2:], where)
		if err != nil {
			return err
		}
		inv.Env = local
		r.out = append(r.out, inv)
	case cmd == "make":
		for _, w := range words[1:] {
			if !strings.HasPrefix(w, "-") && !strings.Contains(w, "=") {
				if err := r.makeTarget(w, local); err != nil {
					return err
				}
			}
		}
	case cmd == "setsid": // runs its command in a session of its own
		return r.command(words[1:], where, local)
	case cmd == "bash" || cmd == "sh":
		if len(words) > 1 && isScript(words[1]) {
			return r.script(scriptPath(words[1]), local)
		}
	case isScript(cmd):
		return r.script(scriptPath(cmd), local)
	}
	return nil
}

// shellKeywords may come before a command on its line.
var shellKeywords = map[string]bool{"if": true, "then": true, "else": true, "elif": true, "do": true,
	"while": true, "until": true, "!": true, "{": true, "time": true, "exec": true}

var varRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:?-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

// alwaysSet are variables the shell itself sets.
var alwaysSet = map[string]bool{"PWD": true, "HOME": true, "PATH": true}

// nonEmpty says whether an assigned value is non-empty: literal text, a
// variable that is set, or a ${VAR:-default} with a default.
func (r *reader) nonEmpty(value string, env map[string]bool) bool {
	if varRef.ReplaceAllString(value, "") != "" {
		return true
	}
	for _, m := range varRef.FindAllStringSubmatch(value, -1) {
		name := m[1] + m[4]
		if env[name] || r.shell[name] || alwaysSet[name] || m[3] != "" {
			return true
		}
	}
	return false
}

// remember keeps a variable's value when it is literal, for expand.
func (r *reader) remember(name, value string) {
	if shellVar.MatchString(value) {
		delete(r.values, name)
		return
	}
	r.values[name] = value
}

// expand replaces $NAME and ${NAME} of variables with literal values
// (COLLECTOR_TESTS='^(TestA|TestB)$' then -run "$COLLECTOR_TESTS").
func (r *reader) expand(word string) string {
	return varRef.ReplaceAllStringFunc(word, func(ref string) string {
		m := varRef.FindStringSubmatch(ref)
		if m[2] != "" { // ${NAME:-default}: left alone
			return ref
		}
		if v, ok := r.values[m[1]+m[4]]; ok {
			return v
		}
		return ref
	})
}

func isScript(word string) bool {
	return strings.HasSuffix(word, ".sh") && strings.HasPrefix(scriptPath(word), "scripts/")
}

func scriptPath(word string) string { return strings.TrimPrefix(word, "./") }

// parseGoTest reads the arguments after `go test`.
func parseGoTest(args []string, where string) (Invocation, error) {
	inv := Invocation{Where: where}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if redirection.MatchString(a) {
			continue
		}
		if a == "-args" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			inv.Packages = append(inv.Packages, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !hasValue && goTestValueFlags[name] {
			if i+1 >= len(args) {
				return inv, fmt.Errorf("%s: go test flag -%s has no value", where, name)
			}
			i++
			value = args[i]
		}
		switch name {
		case "run":
			inv.Run = value
		case "skip":
			inv.Skip = value
		case "tags":
			inv.Tags = strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == ' ' })
		}
	}
	if len(inv.Packages) == 0 {
		inv.Packages = []string{"."}
	}
	for _, p := range inv.Packages {
		if shellVar.MatchString(p) {
			return inv, fmt.Errorf("%s: go test package %q is a variable; write the package so that the suite check can read it", where, p)
		}
	}
	for _, v := range []string{inv.Run, inv.Skip} {
		if shellVar.MatchString(v) {
			return inv, fmt.Errorf("%s: go test filter %q is a variable; write it out so that the suite check can read it", where, v)
		}
	}
	return inv, nil
}

// shellVar is a variable or command substitution; a lone $ is a regexp anchor.
var shellVar = regexp.MustCompile(`\$[A-Za-z_{(]`)

var redirection = regexp.MustCompile(`^[0-9]*(>|>>|<|>&|<&)`)

// splitCommands splits a shell line into commands (at |, ||, &&, ; and &,
// outside quotes), each a list of words with the quotes removed.
func splitCommands(line string) [][]string {
	var cmds [][]string
	var words []string
	var word strings.Builder
	inWord := false
	endWord := func() {
		if inWord {
			words = append(words, word.String())
			word.Reset()
			inWord = false
		}
	}
	endCommand := func() {
		endWord()
		if len(words) > 0 {
			cmds = append(cmds, words)
		}
		words = nil
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				j = len(line) - i - 1
			}
			word.WriteString(line[i+1 : i+1+j])
			inWord, i = true, i+1+j
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) {
					i++
				}
				word.WriteByte(line[i])
			}
			inWord = true
		case c == '$' && i+1 < len(line) && line[i+1] == '(':
			depth, j := 0, i
			for ; j < len(line); j++ {
				if line[j] == '(' {
					depth++
				} else if line[j] == ')' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			word.WriteString(line[i:min(j+1, len(line))])
			inWord, i = true, j
		case c == '#' && !inWord:
			endCommand()
			return cmds
		case c == '|' || c == ';' || c == '&':
			if c == '&' && (word.Len() > 0 && strings.HasSuffix(word.String(), ">") || i+1 < len(line) && line[i+1] == '>') {
				word.WriteByte(c) // 2>&1, &>file
				inWord = true
				continue
			}
			endCommand()
			if i+1 < len(line) && (line[i+1] == '|' || line[i+1] == '&') {
				i++
			}
		case c == ' ' || c == '\t':
			endWord()
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	endCommand()
	return cmds
}

func copyEnv(env map[string]bool) map[string]bool {
	out := make(map[string]bool, len(env))
	for k, v := range env {
		out[k] = v
	}
	return out
}
