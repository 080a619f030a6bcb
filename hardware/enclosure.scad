// hardware/enclosure.scad: a printable desk case for the Pomodoro device (OpenSCAD).
//
// A wedge-fronted box: the Raspberry Pi (3/4/5: 85 x 56 mm board, holes 58 x 49 mm, M2.5) lies
// on the floor on standoffs; the sloped front panel carries the OLED window, the encoder, the
// two buttons and the buzzer's sound holes. Print the body and the front panel flat, without
// supports (the panel face down); the panel screws on with four M2.5 x 6 screws.
//
//   openscad -o body.stl  -D 'part="body"'  hardware/enclosure.scad
//   openscad -o panel.stl -D 'part="panel"' hardware/enclosure.scad
//
// Measure your parts first: OLED modules (0.96" SSD1306 vs 1.3" SH1106) and encoders differ
// by a millimetre or two. All sizes are in mm.

part = "assembly"; // "body", "panel" or "assembly" (both, for viewing)

// --- parts ---------------------------------------------------------------------------------
pi_board = [85, 56];          // Pi 3/4/5 (a Zero 2 W is 65 x 30: use pi_holes = [58, 23])
pi_holes = [58, 49];          // mounting hole spacing
pi_hole_offset = [3.5, 3.5];  // first hole from the board's corner
standoff_h = 5;

oled = "0.96";                // "0.96" (SSD1306 module 27 x 27.5) or "1.3" (SH1106 module 35.4 x 33.5)
oled_module = oled == "1.3" ? [35.4, 33.5] : [27.3, 27.8];
oled_window = oled == "1.3" ? [30.0, 15.5] : [23.0, 12.0]; // the visible area, a little margin
oled_window_up = oled == "1.3" ? 1.5 : 2.5;                // window centre above the module centre
oled_holes = oled == "1.3" ? [30.4, 28.5] : [23.3, 23.8];  // M2 holes at the module's corners

encoder_shaft_d = 7.5;        // 7 mm threaded bushing of an EC11 / KY-040 encoder
button_d = 12.5;              // 12 mm panel buttons (use 7 for 6 mm tactile caps)
buzzer_holes = 7;             // small sound holes over the buzzer

// --- case ----------------------------------------------------------------------------------
wall = 2.2;
inner = [pi_board[0] + 20, pi_board[1] + 24]; // room for the header wires at the front
back_h = 48;                  // height at the back
front_h = 18;                 // height at the front edge, where the slope starts
slope_depth = 46;             // the sloped panel's depth, measured on the floor plan
screw_d = 2.7;                // M2.5 clearance
insert_d = 2.2;               // M2.5 self-tapping into plastic

$fn = 48;

// The Pi lies at the back, under the flat top, its 40-pin header along the back wall, so that
// the jumper wires have height and the panel's parts have the room under the slope.
pi_origin = [wall + 4, wall + inner[1] - pi_board[1] - 2];

module standoffs() {
  for (x = [0, pi_holes[0]], y = [0, pi_holes[1]])
    translate([pi_origin[0] + pi_hole_offset[0] + x, pi_origin[1] + pi_hole_offset[1] + y, 0])
      difference() {
        cylinder(d = 6, h = wall + standoff_h);
        cylinder(d = insert_d, h = wall + standoff_h + 1);
      }
}

// The side profile (y = depth from the front, z = height), extruded across the width.
module profile(grow = 0) {
  polygon([
    [-grow, -grow],
    [inner[1] + 2 * wall + grow, -grow],
    [inner[1] + 2 * wall + grow, back_h + grow],
    [slope_depth + grow, back_h + grow],
    [-grow, front_h + grow],
  ]);
}

module shell() {
  w = inner[0] + 2 * wall;
  difference() {
    rotate([90, 0, 90]) linear_extrude(w) profile();
    // hollow
    translate([wall, 0, 0]) rotate([90, 0, 90]) linear_extrude(inner[0])
      offset(delta = -wall) profile();
    // the front panel opening: the sloped wall goes, the front wall and the sides stay
    translate([wall, 0, 0]) rotate([90, 0, 90]) linear_extrude(inner[0])
      polygon([[wall, front_h - wall], [slope_depth, back_h - wall], [slope_depth, back_h + 5],
               [wall, back_h + 5]]);
    // USB and Ethernet on the Pi's short side, power and HDMI on its long side: two slots
    // (trim them to your model)
    translate([w - wall - 1, pi_origin[1] - 2, wall + standoff_h - 1])
      cube([wall + 2, pi_board[1] + 4, 18]);
    translate([pi_origin[0] + 2, inner[1] + wall - 1, wall + standoff_h - 1])
      cube([pi_board[0] - 10, wall + 2, 9]);
    // ventilation slots in the floor
    for (i = [0 : 5])
      translate([wall + 20 + i * 10, pi_origin[1] + 12, -1]) cube([4, 30, wall + 2]);
  }
  standoffs();
  panel_lugs();
}

// Lugs inside the slope's edges that the panel screws to.
function slope_len() = norm([slope_depth, back_h - front_h]);
function slope_angle() = atan2(back_h - front_h, slope_depth);

module on_slope() {
  translate([0, 0, front_h]) rotate([slope_angle(), 0, 0]) children();
}

module panel_lugs() {
  for (side = [wall, inner[0] + wall - 8], l = [8, slope_len() - 8])
    on_slope() translate([side, l - 4, -8]) difference() {
      cube([8, 8, 8]);
      translate([4, 4, -1]) cylinder(d = insert_d, h = 10);
    }
}

module panel() {
  w = inner[0] + 2 * wall;
  l = slope_len();
  difference() {
    cube([w, l, wall]);
    // OLED window, left
    translate([w * 0.33, l / 2 + oled_window_up, -1])
      translate([-oled_window[0] / 2, -oled_window[1] / 2, 0]) cube([oled_window[0], oled_window[1], wall + 2]);
    for (dx = [-1, 1], dy = [-1, 1])
      translate([w * 0.33 + dx * oled_holes[0] / 2, l / 2 + dy * oled_holes[1] / 2, -1])
        cylinder(d = 2.4, h = wall + 2);
    // encoder, right of the display
    translate([w * 0.72, l * 0.62, -1]) cylinder(d = encoder_shaft_d, h = wall + 2);
    // start and cancel buttons below the encoder
    translate([w * 0.64, l * 0.24, -1]) cylinder(d = button_d, h = wall + 2);
    translate([w * 0.84, l * 0.24, -1]) cylinder(d = button_d, h = wall + 2);
    // buzzer sound holes, far right top
    for (i = [0 : buzzer_holes - 1])
      translate([w * 0.90 + 4 * cos(i * 360 / buzzer_holes), l * 0.80 + 4 * sin(i * 360 / buzzer_holes), -1])
        cylinder(d = 1.8, h = wall + 2);
    // panel screws
    for (x = [wall + 5, inner[0] + wall - 5], y = [8, l - 8])
      translate([x, y, -1]) cylinder(d = screw_d, h = wall + 2);
  }
}

if (part == "body") {
  shell();
} else if (part == "panel") {
  panel();
} else {
  shell();
  color("SteelBlue", 0.8) on_slope() translate([0, 0, 0.2]) panel();
}
