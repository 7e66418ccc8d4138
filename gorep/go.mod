module cpulab/gorep

go 1.26.0

require (
	github.com/go-git/go-git/v5 v5.19.3
	github.com/spf13/pflag v1.0.10
	golang.org/x/sys v0.49.0
	golang.org/x/term v0.47.0
)

require (
	github.com/go-git/gcfg v1.5.1-0.20230307220236-3a3c6141e376 // indirect
	github.com/go-git/go-billy/v5 v5.9.2 // indirect
	github.com/jbenet/go-context v0.0.0-20150711004518-d14ea06fba99 // indirect
	golang.org/x/net v0.57.0 // indirect
	gopkg.in/warnings.v0 v0.1.2 // indirect
)
