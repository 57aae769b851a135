package publish

import (
	"fmt"
	"hash/fnv"
	"strings"
	"unicode/utf8"
)

// KeyLabelMax bounds a partition key where it is a label value (the
// exporter's partition_key) or an alert's annotation: a key can be
// megabytes, and every series and receiver repeats it.
const KeyLabelMax = 120

// KeyLabel is key as valid UTF-8 of at most KeyLabelMax bytes. A longer key
// keeps its start and gets a hash of the whole key, so two long keys never
// collide, and an alert's annotation is the text of its series' label.
func KeyLabel(key string) string {
	key = strings.ToValidUTF8(key, "\uFFFD")
	if len(key) <= KeyLabelMax {
		return key
	}
	h := fnv.New32a()
	h.Write([]byte(key))
	cut := KeyLabelMax - 12 // room for "…" (3 bytes), "#" and 8 hex digits
	for cut > 0 && !utf8.RuneStart(key[cut]) {
		cut--
	}
	return fmt.Sprintf("%s…#%08x", key[:cut], h.Sum32())
}
