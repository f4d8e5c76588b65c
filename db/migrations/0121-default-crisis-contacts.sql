-- Why: issue 25. Out of the box a new installation had no crisis contacts at all: a patient who
-- gave a risk answer saw only the fallback sentence until a coordinator created the content
-- template MESSAGE "crisis_help" for each language. Every installation now starts with one per
-- supported locale (ar, de, en), editable like any template (/admin/templates, versions kept).
--
-- The numbers are those of Germany, where the first trials run: 112 (emergency, EU-wide) and the
-- TelefonSeelsorge (0800 111 0 111 and 0800 111 0 222, free, day and night). THE CLINIC MUST
-- CHECK AND ADAPT THEM before the first patient (its own phone line, its country's services):
-- the description says so, and the coordinators' setup check (0123) lists templates that are
-- still these shipped defaults. A template that already exists is left as it is.

insert into app_public.content_templates (type, code, language_code, title, content, description)
select 'MESSAGE', 'crisis_help', v.language_code, v.title, v.content,
       'Shipped default crisis contacts (Germany). Check and adapt them for your clinic before the first patient.'
  from (values
    ('ar', 'أرقام المساعدة في الأزمات',
     E'إذا كنت في خطر الآن أو تفكر في إيذاء نفسك، فلا تنتظر الرد هنا:\n\n'
     || E'- **الطوارئ (الإسعاف والشرطة):** 112\n'
     || E'- **خط الاستشارة الهاتفية (TelefonSeelsorge)، مجاني على مدار الساعة:** 0800 111 0 111 أو 0800 111 0 222\n'
     || E'- أو اذهب إلى أقرب مستشفى.\n\n'
     || 'يمكنك أيضاً أن تكتب إلى فريق رعايتك هنا؛ لكنّ الرد قد يستغرق وقتاً.'),
    ('de', 'Hilfe in der Krise',
     E'Wenn Sie jetzt in Gefahr sind oder daran denken, sich etwas anzutun, warten Sie nicht auf eine Antwort hier:\n\n'
     || E'- **Notruf (Rettungsdienst und Polizei):** 112\n'
     || E'- **TelefonSeelsorge, kostenlos, rund um die Uhr:** 0800 111 0 111 oder 0800 111 0 222\n'
     || E'- Oder gehen Sie in das nächste Krankenhaus.\n\n'
     || 'Sie können auch Ihrem Behandlungsteam hier schreiben; eine Antwort kann aber dauern.'),
    ('en', 'Help in a crisis',
     E'If you are in danger now or are thinking about harming yourself, do not wait for an answer here:\n\n'
     || E'- **Emergency (ambulance and police):** 112\n'
     || E'- **TelefonSeelsorge crisis line, free, day and night:** 0800 111 0 111 or 0800 111 0 222\n'
     || E'- Or go to the nearest hospital.\n\n'
     || 'You can also write to your care team here, but an answer may take time.')
  ) as v(language_code, title, content)
 where not exists (select 1 from app_public.content_templates t
                    where t.type = 'MESSAGE' and t.code = 'crisis_help' and t.language_code = v.language_code);
