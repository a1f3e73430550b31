// The Go package of the attacks on revert.jobs: 2: a base whose Total sums,
// and a head whose Total is the same but whose init finds the other run's
// folder (beside its own under the system's temporary folder) and acts on it.

export const GO_BASE =
  'package bill\n\n// Total sums the items.\nfunc Total(xs []int) int {\n\ts := 0\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n\treturn s\n}\n';

/**
 * Head's bill.go: its init waits for a path of the other run (`under` its
 * folder: `tree`, `bill`, ...) and runs `body` (Go statements) once, with
 * `f` that path and `own` its own run's folder.
 */
export const goAtOtherRun = (under: string[], body: string) => `package bill

import (
\t"os"
\t"path/filepath"
\t"strings"
\t"time"
)

func init() {
\town := filepath.Dir(os.Getenv("TMPDIR"))
\tfor i := 0; i < 300; i++ {
\t\tfound, _ := filepath.Glob(filepath.Join(filepath.Dir(own), "patchwarden-run-*", ${under.map((u) => JSON.stringify(u)).join(', ')}))
\t\tfor _, f := range found {
\t\t\tif !strings.HasPrefix(f, own+string(filepath.Separator)) {
${body}
\t\t\t\treturn
\t\t\t}
\t\t}
\t\ttime.Sleep(100 * time.Millisecond)
\t}
}

${GO_BASE.replace('package bill\n\n', '')}`;
