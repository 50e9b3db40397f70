// SPDX-License-Identifier: GPL-2.0
// nkctl-cnitool: a test driver that calls CNI plugins the way a container
// runtime does, through the CNI project's reference library libcni
// (AddNetworkList, CheckNetworkList, DelNetworkList, GetVersionInfo).
//
//	nkctl-cnitool add|check|del CONFLIST CONTAINERID NETNS IFNAME
//	nkctl-cnitool version CONFLIST
//
// Plugins are found in CNI_PATH; libcni's result cache (which CHECK and DEL
// read prevResult from) is NKCTL_CNI_CACHE, default /var/lib/cni. The result
// of add, or the version info, is printed as JSON on stdout; a failure prints
// {"code": N, "msg": "..."} on stdout (the CNI error the plugin returned, or
// code 0 for libcni's own) and exits 1.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/containernetworking/cni/libcni"
	"github.com/containernetworking/cni/pkg/types"
)

func die(err error) {
	out := map[string]interface{}{"code": 0, "msg": err.Error()}
	// libcni wraps a plugin's error of ADD ("plugin type=... failed (add): %w").
	var e *types.Error
	if errors.As(err, &e) {
		out["code"] = e.Code
		out["msg"] = e.Msg
	}
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
	os.Exit(1)
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: nkctl-cnitool add|check|del CONFLIST CONTAINERID NETNS IFNAME\n       nkctl-cnitool version CONFLIST")
	os.Exit(2)
}

func main() {
	if len(os.Args) < 3 {
		usage()
	}
	list, err := libcni.ConfListFromFile(os.Args[2])
	if err != nil {
		die(err)
	}
	cache := os.Getenv("NKCTL_CNI_CACHE")
	if cache == "" {
		cache = libcni.CacheDir
	}
	cni := libcni.NewCNIConfigWithCacheDir(filepath.SplitList(os.Getenv("CNI_PATH")), cache, nil)
	ctx := context.Background()
	if os.Args[1] == "version" {
		info, err := cni.GetVersionInfo(ctx, list.Plugins[0].Network.Type)
		if err != nil {
			die(err)
		}
		b, _ := json.Marshal(map[string]interface{}{"supportedVersions": info.SupportedVersions()})
		fmt.Println(string(b))
		return
	}
	if len(os.Args) != 6 {
		usage()
	}
	rt := &libcni.RuntimeConf{ContainerID: os.Args[3], NetNS: os.Args[4], IfName: os.Args[5]}
	switch os.Args[1] {
	case "add":
		res, err := cni.AddNetworkList(ctx, list, rt)
		if err != nil {
			die(err)
		}
		if err := res.Print(); err != nil {
			die(err)
		}
	case "check":
		if err := cni.CheckNetworkList(ctx, list, rt); err != nil {
			die(err)
		}
	case "del":
		if err := cni.DelNetworkList(ctx, list, rt); err != nil {
			die(err)
		}
	default:
		usage()
	}
}
