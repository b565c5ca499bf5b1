module github.com/floodgate-go/floodgate/adapters/chilimit

go 1.26.0

require (
	github.com/floodgate-go/floodgate v0.0.0-00010101000000-000000000000
	github.com/go-chi/chi/v5 v5.5.0
	github.com/stretchr/testify v1.12.1
)

require (
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/text v0.40.0 // indirect
)

replace github.com/floodgate-go/floodgate => ../..
