// swift-tools-version:6.0
// The Pomodoro desk device. Builds with Swift 6.0 (Debian trixie's swiftlang) and 6.3.
//
// The hardware backend (libgpiod, libi2c) is compiled in only where its headers are
// installed; elsewhere (a laptop, macOS) the C shim compiles its "not installed" body and
// the device runs on the mock hardware. The headers are looked for in the target's system, not
// necessarily the build host's:
//   POMODORO_SYSROOT=DIR        look in DIR/usr/include (a cross-build's sysroot, the one the
//                               Swift SDK compiles against; deploy/build-deb.sh sets it); default /
//   POMODORO_REQUIRE_HARDWARE=1 fail here, naming the missing header, rather than leave libgpiod,
//                               libi2c, libmosquitto, libmicrohttpd, libqrencode, libavahi-client
//                               or libcurl out (a package that only simulates, or whose pomodoro-web
//                               cannot serve, draw its QR code or announce itself, or whose hooks
//                               cannot post)
//   POMODORO_NO_HARDWARE=1      the mock-only build, whatever is installed
import PackageDescription

#if os(Linux)
  import Foundation

  let environment = ProcessInfo.processInfo.environment
  let sysroot = environment["POMODORO_SYSROOT"] ?? ""
  let forceMock = environment["POMODORO_NO_HARDWARE"] == "1"
  let requireHardware = environment["POMODORO_REQUIRE_HARDWARE"] == "1"
  let headers = [
    "gpiod.h", "i2c/smbus.h", "mosquitto.h", "microhttpd.h", "qrencode.h", "avahi-client/client.h", "curl/curl.h",
  ]
  // A header is in /usr/include or in a multiarch folder of it (Debian's libcurl: x86_64-linux-gnu/curl).
  let multiarch = ((try? FileManager.default.contentsOfDirectory(atPath: "\(sysroot)/usr/include")) ?? [])
    .filter { $0.contains("-linux-gnu") }
  let found = headers.map { header in
    ([""] + multiarch.map { "\($0)/" }).contains {
      FileManager.default.fileExists(atPath: "\(sysroot)/usr/include/\($0)\(header)")
    }
  }
  if requireHardware {
    let missing =
      forceMock
      ? ["POMODORO_NO_HARDWARE=1 is set"]
      : zip(headers, found).filter { !$0.1 }.map {
        "\(sysroot)/usr/include/\($0.0) is missing"
      }
    if !missing.isEmpty {
      FileHandle.standardError.write(
        Data(
          ("Package.swift: POMODORO_REQUIRE_HARDWARE=1, but \(missing.joined(separator: ", ")) "
            + "(install libgpiod-dev, libi2c-dev, libmosquitto-dev, libmicrohttpd-dev, libqrencode-dev, "
            + "libavahi-client-dev and libcurl4-openssl-dev there, or set "
            + "POMODORO_SYSROOT)\n").utf8))
      exit(1)
    }
  }
  let hasGPIOD = !forceMock && found[0]
  let hasI2C = !forceMock && found[1]
  let hasMosquitto = !forceMock && found[2]
  // libmicrohttpd for `pomodoro web` (the package pomodoro-web): compiled in where its header is.
  let hasMicrohttpd = !forceMock && found[3]
  // libqrencode for the pairing screen's QR code, libavahi-client for announcing the page (mDNS).
  let hasQRencode = !forceMock && found[4]
  let hasAvahi = !forceMock && found[5]
  // libcurl for `pomodoro hooks`' webhooks (the package pomodoro-hooks).
  let hasCurl = !forceMock && found[6]
  // libcrypt for the web page's pairings: libc6-dev brings its header wherever a C compiler is, and
  // Debian's libcrypt1 is always installed; not hardware, so the mock-only build has it too (the
  // pairing tests run without libmicrohttpd).
  let hasCrypt = FileManager.default.fileExists(atPath: "\(sysroot)/usr/include/crypt.h")
#else
  let hasGPIOD = false
  let hasI2C = false
  let hasMosquitto = false
  let hasMicrohttpd = false
  let hasQRencode = false
  let hasAvahi = false
  let hasCrypt = false
  let hasCurl = false
#endif

var shimDefines: [CSetting] = []
var shimLinks: [LinkerSetting] = []
if hasGPIOD {
  shimDefines.append(.define("POMODORO_HAVE_GPIOD"))
  shimLinks.append(.linkedLibrary("gpiod"))
}
if hasI2C {
  shimDefines.append(.define("POMODORO_HAVE_I2C"))
  shimLinks.append(.linkedLibrary("i2c"))
}

// libmosquitto for the MQTT bridge: compiled in only where its header is installed, and loaded
// by the shim when `pomodoro mqtt` makes its client (dlopen), so that the device's own process
// never maps it or the TLS libraries it needs.
var mqttDefines: [CSetting] = []
var mqttLinks: [LinkerSetting] = []
if hasMosquitto {
  mqttDefines.append(.define("POMODORO_HAVE_MOSQUITTO"))
  mqttLinks.append(.linkedLibrary("dl"))
}

// GNU libmicrohttpd for the web page's server, the same way: loaded by the shim when `pomodoro
// web` starts it.
var webDefines: [CSetting] = []
var webLinks: [LinkerSetting] = []
if hasMicrohttpd {
  webDefines.append(.define("POMODORO_HAVE_MICROHTTPD"))
  webLinks.append(.linkedLibrary("dl"))
}
// libavahi-client announces the page over mDNS, loaded by the same shim when `pomodoro web` starts
// (it brings libdbus, which no other process should map).
if hasAvahi {
  webDefines.append(.define("POMODORO_HAVE_AVAHI"))
  if !hasMicrohttpd { webLinks.append(.linkedLibrary("dl")) }
}
// libqrencode draws the pairing screen's QR code: loaded by its shim the first time the device
// shows a code.
var qrDefines: [CSetting] = []
var qrLinks: [LinkerSetting] = []
if hasQRencode {
  qrDefines.append(.define("POMODORO_HAVE_QRENCODE"))
  qrLinks.append(.linkedLibrary("dl"))
}
// libcurl posts the webhooks of `pomodoro hooks`, loaded by its shim at the first post.
var curlDefines: [CSetting] = []
var curlLinks: [LinkerSetting] = []
if hasCurl {
  curlDefines.append(.define("POMODORO_HAVE_CURL"))
  curlLinks.append(.linkedLibrary("dl"))
}
// libcrypt (Debian's libcrypt1, always installed) hashes the pairings the server keeps.
if hasCrypt {
  webDefines.append(.define("POMODORO_HAVE_CRYPT"))
  webLinks.append(.linkedLibrary("crypt"))
}

// In a release build each function gets a section of its own (swiftc puts them all in one
// `.text` otherwise), so that lld can lay the code out in deploy/pomodoro.order's order (below).
let sections: [SwiftSetting] = [
  .unsafeFlags(["-Xfrontend", "-function-sections"], .when(platforms: [.linux], configuration: .release))
]

// The modules every scenario, soak and golden test runs through on each frame (the engine, the
// renderer, the drivers, the controller emulator) are optimised in debug builds too: `swift test`
// spends most of its time there. Overflow checks and `precondition` stay (-O, not -Ounchecked);
// `assert` would not, so where a check must fire these modules use `precondition` (none uses
// `assert`: .ci/check-imports.py fails on one).
let hot: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))] + sections

// How the shipped binaries are linked. By lld (swift.org's and Debian's toolchains ship it) with
// packed relative relocations (DT_RELR, glibc 2.36+: bookworm and trixie): the 26,000
// relocations of a static-stdlib binary take a few KiB instead of 600, which the loader no longer
// reads at every start (peak resident memory 8.5 -> 8.0 MiB over a scripted 25-minute focus).
//
// In a release build: no symbol exported (swiftc's static-stdlib link asks for --export-dynamic:
// 6,000 names the loader would look through, 0.5 MiB resident at every start); libstdc++ linked
// in (deploy/link/libstdc++.so says why); and the code the processes run first in the text, in
// the order deploy/pomodoro.order lists it (deploy/text-order.sh makes it from profiles): each
// process then touches a few hundred KiB of our code instead of most of it (the kernel maps 64
// KiB around each page touched). A function the list does not name comes after it.
let shipped: [LinkerSetting] = [
  .unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"], .when(platforms: [.linux])),
  .unsafeFlags(
    [
      "-Xlinker", "--no-export-dynamic", "-L", "\(Context.packageDirectory)/deploy/link",
      "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/deploy/pomodoro.order", "-Xlinker",
      "--no-warn-symbol-ordering",
    ], .when(platforms: [.linux], configuration: .release)),
]

let package = Package(
  name: "pomodoro",
  products: [
    .executable(name: "pomodoro", targets: ["pomodoro"]),
    .executable(name: "pomodoro-mqtt", targets: ["pomodoro-mqtt"]),
  ],
  targets: [
    // Functional core: the countdown engine. No I/O, no Foundation.
    .target(name: "PomodoroCore", swiftSettings: hot),
    // 1-bit framebuffer, fonts, icons, the screen renderer, the PNG writer.
    .target(name: "PomodoroGraphics", dependencies: ["PomodoroCore"], swiftSettings: hot),
    // Pure drivers over small protocols: OLED controllers over I2CBus, quadrature decoder,
    // button debouncer, buzzer patterns over GPIO line protocols.
    .target(name: "PomodoroDrivers", dependencies: ["PomodoroCore", "PomodoroGraphics"], swiftSettings: hot),
    // Mock hardware: controller emulator, scripted GPIO lines, virtual clock.
    .target(
      name: "PomodoroMock", dependencies: ["PomodoroCore", "PomodoroGraphics", "PomodoroDrivers"], swiftSettings: hot),
    // The one C shim over libgpiod (v1 or v2, chosen at compile time) and libi2c.
    .target(name: "CPomodoroHW", cSettings: shimDefines, linkerSettings: shimLinks),
    // System calls Swift's overlay does not export (timerfd, signal self-pipe, adjtimex).
    .target(name: "CPomodoroSystem"),
    // Linux backends of the driver protocols, through the shim.
    .target(
      name: "PomodoroLinux", dependencies: ["PomodoroCore", "PomodoroDrivers", "CPomodoroHW"], swiftSettings: sections),
    // The platform every process of the device stands on (run, simulate, ctl, mqtt, web): POSIX
    // calls, files, sockets and line buffers, the poll waiter, the loop's sources and back-off,
    // signals, clocks, logs, exit codes, the version, JSON lines and duration text. Nothing of
    // the device's own: no config, no protocol, no storage, no hardware.
    .target(name: "PomodoroSystem", dependencies: ["PomodoroCore", "CPomodoroSystem"], swiftSettings: hot),
    // The config: its one table of keys (`ConfigKey`) and of lines (`DeviceLine`), the parser,
    // the layers (file, overlay) and the settings the control socket lists and changes.
    .target(
      name: "PomodoroConfig", dependencies: ["PomodoroCore", "PomodoroDrivers", "PomodoroSystem"], swiftSettings: hot),
    // The control protocol and its records: the commands and their request lines, replies and
    // item lines, the state's fields, the history's record, and a bridge's link to the device
    // (`DeviceLink`). What the bridges and the history's readers need of the device.
    .target(
      name: "PomodoroControl", dependencies: ["PomodoroCore", "PomodoroSystem", "PomodoroConfig"], swiftSettings: hot),
    // The one C shim over libqrencode, loaded on first use (or its "not installed" body).
    .target(name: "CPomodoroQR", cSettings: qrDefines, linkerSettings: qrLinks),
    // Imperative shell of the device: the device and its event loop, the service (SIGHUP reload,
    // systemd), state and history files, OLED care, the control socket's server. It sees neither
    // the mocks nor the Linux hardware (the command line hands it one or the other).
    .target(
      name: "PomodoroRuntime",
      dependencies: [
        "PomodoroCore", "PomodoroGraphics", "PomodoroDrivers", "PomodoroSystem", "PomodoroConfig", "PomodoroControl",
        "CPomodoroQR",
      ],
      swiftSettings: hot
    ),
    // The one C shim over libmosquitto, loaded on first use (or its "not installed" body).
    .target(name: "CPomodoroMQTT", cSettings: mqttDefines, linkerSettings: mqttLinks),
    // `pomodoro stats`: the history's figures, their text and their picture, from the history's
    // records (`HistoryEntry`, PomodoroControl's); the command line reads the file.
    .target(
      name: "PomodoroStats", dependencies: ["PomodoroCore", "PomodoroGraphics", "PomodoroSystem", "PomodoroControl"],
      swiftSettings: sections),
    // The one C shim over libmicrohttpd, loaded on first use (or its "not installed" body).
    .target(name: "CPomodoroWeb", cSettings: webDefines, linkerSettings: webLinks),
    // The web page's server (`pomodoro web`, to come): HTTP in the one poll loop, the device
    // through the shared DeviceLink.
    // The page's files (Page/) are compiled in as byte arrays (docs/internals.md, "The web page").
    .target(
      name: "PomodoroWeb",
      dependencies: [
        "PomodoroCore", "PomodoroGraphics", "PomodoroStats", "PomodoroSystem", "PomodoroConfig", "PomodoroControl",
        "CPomodoroWeb",
      ],
      resources: ["index.html", "app.css", "app.js", "manifest.webmanifest", "icon.svg"].map {
        .embedInCode("Page/\($0)")
      },
      swiftSettings: sections
    ),
    // The one C shim over libcurl, loaded on first use (or its "not installed" body).
    .target(name: "CPomodoroHooks", cSettings: curlDefines, linkerSettings: curlLinks),
    // The hooks (`pomodoro hooks`): the control socket on one side, the owner's command and
    // webhook on the other, one at a time, on one loop.
    .target(
      name: "PomodoroHooks",
      dependencies: [
        "PomodoroCore", "PomodoroSystem", "PomodoroConfig", "PomodoroControl", "CPomodoroHooks", "CPomodoroSystem",
      ],
      swiftSettings: sections),
    // The MQTT bridge (`pomodoro mqtt`): the control socket on one side, a broker on the other.
    .target(
      name: "PomodoroMQTT",
      dependencies: ["PomodoroCore", "PomodoroSystem", "PomodoroConfig", "PomodoroControl", "CPomodoroMQTT"],
      swiftSettings: sections),
    // The device on mock hardware: the interactive terminal simulator and headless scripts
    // with their transcript.
    .target(
      name: "PomodoroSimulator",
      dependencies: [
        "PomodoroCore", "PomodoroGraphics", "PomodoroDrivers", "PomodoroMock", "PomodoroRuntime", "PomodoroSystem",
        "PomodoroConfig", "PomodoroControl",
      ],
      swiftSettings: hot
    ),
    // The command line: run, probe, simulate, snapshot, history, stats, ctl, mqtt, web.
    .target(
      name: "PomodoroCommandLine",
      dependencies: [
        "PomodoroCore", "PomodoroGraphics", "PomodoroDrivers", "PomodoroLinux", "PomodoroRuntime", "PomodoroSystem",
        "PomodoroConfig", "PomodoroControl",
        "PomodoroSimulator",
        "PomodoroStats", "PomodoroMQTT", "PomodoroWeb", "PomodoroHooks",
      ],
      swiftSettings: sections
    ),
    // The device, its tools and the in-process servers (`shipped`: how it is linked).
    .executableTarget(
      name: "pomodoro", dependencies: ["PomodoroCommandLine"], swiftSettings: sections, linkerSettings: shipped),
    // The MQTT bridge's process (`pomodoro mqtt` execs it, from /usr/lib/pomodoro in the package):
    // only the bridge's modules, so it maps and relocates none of the device's code and data.
    .executableTarget(
      name: "pomodoro-mqtt", dependencies: ["PomodoroMQTT"], swiftSettings: sections, linkerSettings: shipped),
    // The benchmarks (Benchmarks/README.md): a target of this package, not a product, so that no
    // release build or package builds it; `swift run pomodoro-bench` and `swift build --product
    // pomodoro-bench` still find it (SwiftPM makes a root package's executable targets runnable).
    .executableTarget(
      name: "pomodoro-bench",
      dependencies: [
        "PomodoroCore", "PomodoroGraphics", "PomodoroDrivers", "PomodoroMock", "PomodoroRuntime", "PomodoroSystem",
        "PomodoroConfig", "PomodoroControl",
        "PomodoroSimulator", "PomodoroWeb",
        "PomodoroTestFixtures",
      ],
      path: "Benchmarks/pomodoro-bench"
    ),
    .testTarget(name: "PomodoroCoreTests", dependencies: ["PomodoroCore", "PomodoroMock"]),
    .testTarget(
      name: "PomodoroGraphicsTests",
      dependencies: ["PomodoroCore", "PomodoroGraphics"],
      exclude: ["Golden"]
    ),
    .testTarget(
      name: "PomodoroDriversTests",
      dependencies: ["PomodoroCore", "PomodoroGraphics", "PomodoroDrivers", "PomodoroMock"]
    ),
    .testTarget(
      name: "PomodoroMockTests", dependencies: ["PomodoroCore", "PomodoroGraphics", "PomodoroDrivers", "PomodoroMock"],
      exclude: ["Golden"]),
    .testTarget(name: "PomodoroLinuxTests", dependencies: ["PomodoroCore", "PomodoroLinux", "PomodoroDrivers"]),
    .testTarget(
      name: "PomodoroStatsTests",
      dependencies: [
        "PomodoroCore", "PomodoroGraphics", "PomodoroRuntime", "PomodoroSystem", "PomodoroControl", "PomodoroStats",
      ]),
    // The one home of what tests (and the bench) share and the device never ships, as NIOEmbedded
    // is swift-nio's: the soak (a virtual month of random use with faults), the fault-injecting
    // file systems, the waiter that does not sleep; a device on mock hardware with its storage or
    // its control socket, a mosquitto broker on 127.0.0.1, the built binary as a child process, a
    // pseudo-terminal with a VT100 model, a scripted run. Its API is `package`, never reached with
    // @testable. The files that use XCTest are `#if DEBUG` (a release build, which the bench may
    // be, has no XCTest to link); the doubles the bench shares compile in every build.
    .target(
      name: "PomodoroTestFixtures",
      dependencies: [
        "PomodoroCore", "PomodoroGraphics", "PomodoroDrivers", "PomodoroMock", "PomodoroRuntime", "PomodoroSystem",
        "PomodoroConfig", "PomodoroControl",
        "PomodoroSimulator",
        "PomodoroCommandLine", "PomodoroWeb",
      ],
      path: "Tests/PomodoroTestFixtures"
    ),
    .testTarget(
      name: "PomodoroSystemTests",
      dependencies: ["PomodoroCore", "PomodoroSystem", "PomodoroConfig", "PomodoroControl"]
    ),
    .testTarget(
      name: "PomodoroRuntimeTests",
      dependencies: [
        "PomodoroCore", "PomodoroGraphics", "PomodoroDrivers", "PomodoroMock", "PomodoroRuntime", "PomodoroSystem",
        "PomodoroConfig", "PomodoroControl",
        "PomodoroSimulator", "PomodoroStats", "PomodoroTestFixtures", "PomodoroCommandLine",
      ]
    ),
    .testTarget(
      name: "PomodoroSimulatorTests",
      dependencies: [
        "PomodoroCore", "PomodoroGraphics", "PomodoroMock", "PomodoroRuntime", "PomodoroSystem", "PomodoroConfig",
        "PomodoroSimulator",
        "PomodoroTestFixtures",
      ]
    ),
    .testTarget(
      name: "PomodoroCommandLineTests",
      dependencies: [
        "PomodoroCore", "PomodoroRuntime", "PomodoroSystem", "PomodoroConfig", "PomodoroControl", "PomodoroSimulator",
        "PomodoroCommandLine", "PomodoroMQTT",
        "PomodoroWeb", "PomodoroDrivers",
        "PomodoroTestFixtures",
      ]
    ),
    .testTarget(
      name: "PomodoroWebTests",
      dependencies: [
        "PomodoroCore", "PomodoroGraphics", "PomodoroMock", "PomodoroSystem", "PomodoroConfig", "PomodoroControl",
        "PomodoroWeb", "PomodoroRuntime",
        "PomodoroStats", "PomodoroTestFixtures",
      ]
    ),
    // The bench's command table (Benchmarks/pomodoro-bench; an executable target, tested as one).
    .testTarget(name: "PomodoroBenchTests", dependencies: ["pomodoro-bench", "PomodoroSystem"]),
    .testTarget(
      name: "PomodoroHooksTests",
      dependencies: ["PomodoroCore", "PomodoroSystem", "PomodoroConfig", "PomodoroControl", "PomodoroHooks"]
    ),
    .testTarget(
      name: "PomodoroMQTTTests",
      dependencies: [
        "PomodoroCore", "PomodoroRuntime", "PomodoroSystem", "PomodoroConfig", "PomodoroControl", "PomodoroMQTT",
        "PomodoroMock", "PomodoroTestFixtures",
      ]
    ),
  ]
)
