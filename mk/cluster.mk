# mk/cluster.mk — ifscore on a dqlite cluster (Raft-replicated SQLite).
# Included by the main Makefile; every output is under build/cluster, and
# the node is build/ifscore-node.
#
#   make cluster        build/ifscore-node: one dqlite node with the ifscore
#                       functions on every connection (cluster/main.go, Go,
#                       go-dqlite's app package, the library linked in by cgo)
#   make test-cluster   three nodes on 127.0.0.1: schema, cases, regrade, the
#                       leader killed, failover, the node back (tests/cluster)
#
# Go builds offline from Debian's packages, in GOPATH mode; the Debian
# packages are installed by tools/deps.sh when root (else it prints the
# apt-get command). See docs/scaling-out.md.

CLUSTER_PKGS = golang-go golang-github-canonical-go-dqlite-dev libdqlite-dev go-dqlite
GO          ?= go
CLUSTER_TIMEOUT ?= 600

# The glue and allocator compiled into the host (-DSQLITE_CORE: SQLite's API
# called directly, no sqlite3_api_routines); the core objects are the usual ones.
build/cluster/obj/%.o: ext/%.c $(HEADERS) | deps
	@mkdir -p build/cluster/obj
	$(CC) $(WARN) $(CFLAGS) -DSQLITE_CORE -fPIC $(PKG_CFLAGS) -c $< -o $@

CLUSTER_OBJ = $(CORE_OBJ) build/cluster/obj/ifs_alloc_sqlite.o build/cluster/obj/ifscore.o

build/cluster/libifscore.a: $(CLUSTER_OBJ)
	@rm -f $@
	ar rcs $@ $(CLUSTER_OBJ)

# go build leaves an up-to-date binary alone without looking at the archive
# it links in, hence the rm.
build/ifscore-node: cluster/main.go build/cluster/libifscore.a | cluster-deps
	@rm -f $@
	GO111MODULE=off GOPATH=/usr/share/gocode GOFLAGS= \
	  GOCACHE=$(CURDIR)/build/cluster/gocache CGO_LDFLAGS_ALLOW='-Wl,-z,now' \
	  CGO_CFLAGS="$(PKG_CFLAGS)" \
	  CGO_LDFLAGS="$(CURDIR)/build/cluster/libifscore.a $(PKG_LIBS)" \
	  $(GO) build -o $@ ./cluster

.PHONY: cluster cluster-deps test-cluster
cluster: build/ifscore-node

cluster-deps:
	@sh tools/deps.sh $(CLUSTER_PKGS)

test-cluster: build/ifscore-node build/ifscore.so
	@timeout -k 10 $(CLUSTER_TIMEOUT) sh tests/cluster/run.sh build/ifscore-node
