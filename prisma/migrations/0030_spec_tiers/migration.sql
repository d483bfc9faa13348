-- The support platform's tiers the product knows by id (docs/product.md, constants): which count
-- as paid, which may vote, and the Subscribe labels. Before this only the demo seed wrote tiers,
-- so a site started without demo content could not give a post any tier. Titles and prices are
-- the platform's: the members sync and webhooks overwrite these placeholders as members arrive.
INSERT INTO "tiers" ("id", "title", "amount_cents", "is_paid", "can_vote", "subscribe_label") VALUES
    ('8824971',  'Tier 1',         NULL, true,  false, 'Tier 1'),
    ('8825009',  'Tier 2',         NULL, true,  true,  'Tier 2'),
    ('21786318', 'Tier 3',         NULL, true,  true,  'Tier 3'),
    ('10477032', 'Tier 10477032',  NULL, true,  false, NULL),
    ('8652254',  'Tier 8652254',   NULL, true,  false, NULL),
    ('8658988',  'Tier 8658988',   NULL, false, true,  NULL),
    ('23507144', 'Tier 23507144',  NULL, false, true,  NULL),
    ('23507184', 'Tier 23507184',  NULL, false, true,  NULL),
    ('8825088',  'Tier 8825088',   NULL, false, true,  NULL)
ON CONFLICT ("id") DO NOTHING;
