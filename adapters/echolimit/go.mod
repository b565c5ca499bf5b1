module github.com/floodgate-go/floodgate/adapters/echolimit

go 1.26.0

require (
	github.com/floodgate-go/floodgate v0.0.0-00010101000000-000000000000
	github.com/labstack/echo/v4 v4.16.0
	github.com/stretchr/testify v1.12.1
)

require (
	github.com/labstack/gommon v0.5.0 // indirect
	github.com/mattn/go-colorable v0.1.15 // indirect
	github.com/mattn/go-isatty v0.0.22 // indirect
	github.com/valyala/bytebufferpool v1.0.0 // indirect
	github.com/valyala/fasttemplate v1.2.2 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/crypto v0.53.0 // indirect
	golang.org/x/net v0.56.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.40.0 // indirect
	golang.org/x/time v0.16.0 // indirect
)

replace github.com/floodgate-go/floodgate => ../..
