module github.com/floodgate-go/floodgate

go 1.26.0

require (
	github.com/stretchr/testify v1.12.1
	golang.org/x/time v0.16.0
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect
