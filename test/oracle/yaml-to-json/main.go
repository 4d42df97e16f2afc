// The reference's YAML decoder as a subprocess: for each request line on stdin (a JSON string, the
// YAML text), one answer line on stdout: {"json": <YAMLToJSON's output as a string>} or
// {"error": <its error message>}. ghodss/yaml's YAMLToJSON over go-yaml v2 is what
// sigs.k8s.io/yaml's YAMLToJSON does for untyped decoding (see README.md here).
// Built offline in GOPATH mode: GO111MODULE=off GOPATH=/usr/share/gocode go build.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"github.com/ghodss/yaml"
)

type answer struct {
	JSON  *string `json:"json,omitempty"`
	Error *string `json:"error,omitempty"`
}

func convert(text string) (a answer) {
	defer func() {
		if r := recover(); r != nil {
			msg := fmt.Sprintf("panic: %v", r)
			a = answer{Error: &msg}
		}
	}()
	out, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		msg := err.Error()
		return answer{Error: &msg}
	}
	s := string(out)
	return answer{JSON: &s}
}

func main() {
	in := bufio.NewReader(os.Stdin)
	w := bufio.NewWriter(os.Stdout)
	dec := json.NewDecoder(in)
	enc := json.NewEncoder(w)
	for {
		var text string
		if err := dec.Decode(&text); err != nil {
			w.Flush()
			return
		}
		if err := enc.Encode(convert(text)); err != nil {
			os.Exit(1)
		}
		w.Flush()
	}
}
