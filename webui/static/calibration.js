// Calibration page: four clicks on the current frame, saved per camera.
"use strict";

const Cal = { points: [], size: [960, 720], camera: null, saved: null };

function drawCal() {
  const svg = clear(document.getElementById("calib-svg"));
  svg.setAttribute("viewBox", `0 0 ${Cal.size[0]} ${Cal.size[1]}`);
  if (Cal.saved) svg.append(svgEl("polygon", { class: "saved", points: Cal.saved.map((p) => p.join(",")).join(" ") }));
  if (Cal.points.length >= 2) svg.append(svgEl("polygon", { points: Cal.points.map((p) => p.join(",")).join(" ") }));
  Cal.points.forEach((p, i) => {
    svg.append(svgEl("circle", { cx: p[0], cy: p[1], r: 8 }));
    const t = svgEl("text", { x: p[0] + 10, y: p[1] - 10 });
    t.textContent = String(i + 1);
    svg.append(t);
  });
  document.getElementById("calib-count").textContent = `${Cal.points.length} of 4 corners`;
  document.getElementById("calib-save").disabled = Cal.points.length !== 4;
}

function refreshFrame() {
  document.getElementById("calib-img").src = `/frame.jpg?t=${Date.now()}`;
}

document.getElementById("calib").addEventListener("click", (ev) => {
  if (Cal.points.length >= 4) return;
  const r = ev.currentTarget.getBoundingClientRect();
  const x = ((ev.clientX - r.left) / r.width) * Cal.size[0];
  const y = ((ev.clientY - r.top) / r.height) * Cal.size[1];
  Cal.points.push([Math.round(x * 10) / 10, Math.round(y * 10) / 10]);
  drawCal();
});
document.getElementById("calib-reset").addEventListener("click", () => { Cal.points = []; drawCal(); });
document.getElementById("calib-refresh").addEventListener("click", refreshFrame);
document.getElementById("calib-save").addEventListener("click", async () => {
  const msg = document.getElementById("calib-msg");
  try {
    const r = await api("/api/calibration", { method: "POST",
      json: { camera: Cal.camera, corners: Cal.points, image_size: Cal.size } });
    Cal.saved = r.calibration.corners;
    Cal.points = [];
    drawCal();
    msg.className = "success";
    msg.textContent = `Saved for camera ${r.calibration.camera} (${r.file}).`;
  } catch (e) { msg.className = "error"; msg.textContent = e.message; }
});

api("/api/calibration").then((r) => {
  Cal.camera = r.camera;
  if (r.frame_size && r.frame_size[0]) Cal.size = r.frame_size;
  document.getElementById("calib").style.aspectRatio = `${Cal.size[0]} / ${Cal.size[1]}`;
  Cal.saved = r.calibration ? r.calibration.corners : null;
  document.getElementById("camera-name").textContent = `camera: ${r.camera}`;
  drawCal();
}).catch((e) => { document.getElementById("calib-msg").textContent = e.message; });
refreshFrame();
