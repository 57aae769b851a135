// The module make scale builds Thanos from (scripts/scale.sh copies this
// directory into the cache and runs go mod tidy and go build there): Thanos'
// own go.mod has replace directives, which `go install pkg@version` refuses,
// so its command is built as a dependency of this module with the same
// replacements. They are those of Thanos v0.39.2's go.mod, plus the one
// Thanos itself added later (v0.42) for zenhack.net/go/util, whose domain
// expired and which the module proxy no longer serves.
module partmon.local/thanosbuild

go 1.24.0

require github.com/thanos-io/thanos v0.39.2

replace (
	capnproto.org/go/capnp/v3 => capnproto.org/go/capnp/v3 v3.0.0-alpha.30
	github.com/bradfitz/gomemcache => github.com/themihai/gomemcache v0.0.0-20180902122335-24332e2d58ab
	github.com/prometheus/prometheus => github.com/thanos-io/thanos-prometheus v0.0.0-20250610133519-082594458a88
	github.com/sercand/kuberesolver/v4 => github.com/sercand/kuberesolver/v5 v5.1.1
	github.com/vimeo/galaxycache => github.com/thanos-community/galaxycache v0.0.0-20211122094458-3a32041a1f1e
	google.golang.org/grpc => google.golang.org/grpc v1.63.2
	gopkg.in/alecthomas/kingpin.v2 => github.com/alecthomas/kingpin v1.3.8-0.20210301060133-17f40c25f497
	zenhack.net/go/util => github.com/zenhack/go-util v0.0.0-20231005031245-66f5419c2aea
)
