package suitecheck

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
)

// Reaches says whether inv runs t, and if not, why.
func Reaches(inv Invocation, t Test) (bool, string) {
	if !inv.HasTag("integration") {
		return false, "builds without -tags integration"
	}
	if !matchesPackage(inv.Packages, t.Package) {
		return false, "does not run package ./" + t.Package
	}
	if inv.Run != "" {
		ok, err := matchesTop(inv.Run, t.Name)
		if err != nil {
			return false, fmt.Sprintf("-run %q: %v", inv.Run, err)
		}
		if !ok {
			return false, fmt.Sprintf("-run %q does not match it", inv.Run)
		}
	}
	if inv.Skip != "" {
		if ok, _ := matchesTop(inv.Skip, t.Name); ok && !strings.Contains(inv.Skip, "/") {
			return false, fmt.Sprintf("-skip %q skips it", inv.Skip)
		}
	}
	var unset []string
	for _, e := range t.NeedsEnv {
		if !inv.Env[e] {
			unset = append(unset, e)
		}
	}
	if len(unset) > 0 {
		return false, "does not set " + strings.Join(unset, ", ") + ", without which the test skips"
	}
	return true, ""
}

// matchesPackage: ./... matches everything, ./x/... x and below, ./x only x.
func matchesPackage(patterns []string, pkg string) bool {
	for _, p := range patterns {
		p = strings.TrimSuffix(strings.TrimPrefix(p, "./"), "/")
		switch {
		case p == "..." || p == "":
			return true
		case strings.HasSuffix(p, "/..."):
			base := strings.TrimSuffix(p, "/...")
			if pkg == base || strings.HasPrefix(pkg, base+"/") {
				return true
			}
		case path.Clean(p) == pkg:
			return true
		}
	}
	return false
}

// matchesTop applies the first element of a -run pattern (go test splits
// it at slashes outside brackets and parentheses) to a top-level test name.
func matchesTop(pattern, name string) (bool, error) {
	first := pattern
	depth := 0
	for i, c := range pattern {
		switch c {
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case '/':
			if depth == 0 {
				first = pattern[:i]
				return compileMatch(first, name)
			}
		}
	}
	return compileMatch(first, name)
}

func compileMatch(pattern, name string) (bool, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return false, err
	}
	return re.MatchString(name), nil
}

// Unreached is a test no invocation runs, with what each one that runs its
// package lacks.
type Unreached struct {
	Test Test
	Why  []string // "scripts/test-all.sh:58: does not set X"
}

func (u Unreached) String() string {
	why := "no go test command of make test or make faults runs package ./" + u.Test.Package
	if len(u.Why) > 0 {
		why = strings.Join(u.Why, "; ")
	}
	return fmt.Sprintf("%s (%s) runs in neither make test nor make faults: %s", u.Test.Name, u.Test.Where, why)
}

// Check returns the tests no invocation reaches, and for each reached test
// the first invocation that runs it.
func Check(tests []Test, invs []Invocation) (unreached []Unreached, reachedBy map[string]string) {
	reachedBy = map[string]string{}
	for _, t := range tests {
		u := Unreached{Test: t}
		for _, inv := range invs {
			ok, why := Reaches(inv, t)
			if ok {
				reachedBy[t.Package+"."+t.Name] = inv.Where
				break
			}
			if matchesPackage(inv.Packages, t.Package) && inv.HasTag("integration") {
				u.Why = append(u.Why, inv.Where+": "+why)
			}
		}
		if _, ok := reachedBy[t.Package+"."+t.Name]; !ok {
			sort.Strings(u.Why)
			unreached = append(unreached, u)
		}
	}
	return unreached, reachedBy
}
