// Console page: the maintenance switch. Mounted at /console/maintenance.
import { ReadError, Field, PostForm } from "../components";
import { back, consoleRouter, doneNotice, failed, formOf, text, type C } from "../context";
import type { Maintenance } from "../wire";

async function maintenancePage(c: C) {
  const res = await c.var.api.call<{ Maintenance: Maintenance }>("GET", "/maintenance");
  const m = res.ok ? res.data.Maintenance : null;
  const heading = m?.Enabled ? "Turn maintenance off" : "Turn maintenance on";
  return c.render(
    <>
      <ReadError res={res} />
      <p id="maintenance-state">
        Maintenance is <strong>{m?.Enabled ? "on" : "off"}</strong>
        {m?.Enabled ? <>: every /v1 call answers 503{m.Message ? <> with “{m.Message}”</> : ""}.</> : "."}
      </p>
      <section class="card" aria-labelledby="maint-h">
        <h2 id="maint-h">{heading}</h2>
        <PostForm action="/console/maintenance" name="maintenance" fields={["Message"]}>
          <input type="hidden" name="Enabled" value={m?.Enabled ? "false" : "true"} />
          {m?.Enabled ? (
            ""
          ) : (
            <Field form="maintenance" name="Message" label="Message to clients" hint="Shown in every 503 while maintenance is on." attrs={{ maxlength: 500 }} />
          )}
          <button type="submit">{heading}</button>
        </PostForm>
      </section>
    </>,
    { title: "Maintenance", done: doneNotice(c, { switched: () => `Maintenance is ${m?.Enabled ? "on" : "off"}.` }) },
  );
}

export const maintenancePages = consoleRouter()
  .get("/", (c) => maintenancePage(c))
  .post("/", async (c) => {
    const body = await formOf(c);
    const enabled = body.Enabled === "true";
    const payload: { Enabled: boolean; Message?: string } = { Enabled: enabled };
    if (enabled && text(body.Message).trim()) payload.Message = text(body.Message).trim();
    const res = await c.var.api.call<{ Maintenance: Maintenance }>("PUT", "/maintenance", payload);
    if (!res.ok) return failed(c, maintenancePage, "maintenance", res);
    return back(c, "/console/maintenance", "switched");
  });
