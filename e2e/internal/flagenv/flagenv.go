// Package flagenv lets environment variables set flag defaults, so a pod
// manifest can configure the e2e stand-in programs with either args or env.
package flagenv

import (
	"flag"
	"fmt"
	"os"
	"sort"
)

// Apply sets each flag from its environment variable when the variable is
// set; command-line flags parsed afterwards still win. vars maps flag names to
// variable names.
func Apply(fs *flag.FlagSet, vars map[string]string) error {
	names := make([]string, 0, len(vars))
	for name := range vars {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		value, ok := os.LookupEnv(vars[name])
		if !ok {
			continue
		}
		if err := fs.Set(name, value); err != nil {
			return fmt.Errorf("%s=%q (flag --%s): %w", vars[name], value, name, err)
		}
	}
	return nil
}
